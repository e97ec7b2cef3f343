// Modes through the handler: what /validate and /mutate answer when rules are in deny, warn or
// audit mode, by config and by namespace label, and quota in warn and audit mode.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "admission/handler.h"
#include "config/config.h"
#include "quota/ledger.h"
#include "quota/testing.h"
#include "review/admission_review.h"

namespace gpugate::admission {
namespace {

using nlohmann::json;
using policy::Mode;

// A pod in team-a whose first container asks for `gpu` nvidia.com/gpu, privileged or not.
json Review(const std::string& name, const std::string& gpu, bool privileged,
            const std::string& ns = "team-a") {
  json container = {{"name", "trainer"},
                    {"image", "cuda:12"},
                    {"resources", {{"limits", {{"nvidia.com/gpu", gpu}}}}}};
  if (privileged) container["securityContext"] = {{"privileged", true}};
  json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", name}, {"namespace", ns}, {"uid", "uid-" + name}}},
              {"spec", {{"containers", json::array({container})}}}};
  return {{"apiVersion", "admission.k8s.io/v1"},
          {"kind", "AdmissionReview"},
          {"request",
           {{"uid", "req-" + name},
            {"kind", {{"group", ""}, {"version", "v1"}, {"kind", "Pod"}}},
            {"resource", {{"group", ""}, {"version", "v1"}, {"resource", "pods"}}},
            {"name", name},
            {"namespace", ns},
            {"operation", "CREATE"},
            {"object", pod}}}};
}

review::AdmissionRequest Decode(const json& review) {
  auto request = review::DecodeReview(review.dump());
  EXPECT_TRUE(request) << request.error().message;
  return request ? std::move(*request) : review::AdmissionRequest{};
}

policy::Settings SettingsFrom(const std::string& yaml) {
  auto config = config::ParseConfig(yaml, "gpugate.yaml");
  EXPECT_TRUE(config) << config.error().message;
  return config ? config->policy : policy::Settings{};
}

// What a reader of the response sees, in one line per part.
std::string Render(const review::Decision& d) {
  std::string out = d.allowed ? "allowed " + d.reason : "denied " + d.reason + ": " + d.message;
  for (const std::string& w : d.warnings) out += "\nwarning: " + w;
  for (const auto& a : d.auditAnnotations) out += "\naudit " + a.key + ": " + a.value;
  for (const auto& v : d.violated) out += "\ncounted " + v.rule + "=" + v.mode;
  if (!d.patch.empty()) out += "\npatched";
  return out;
}

constexpr char kWhole[] =
    R"(spec.containers[0] "trainer": nvidia.com/gpu limit "0.5" must be a whole number of GPUs)";
constexpr char kPrivileged[] =
    R"(spec.containers[0] "trainer": privileged container in a pod that requests GPUs sees every GPU on the node)";

TEST(HandlerModes, EachRuleAnswersInItsMode) {
  const struct {
    const char* config;
    std::string want;
  } kCases[] = {
      {"", std::string("denied whole-units: ") + kWhole + "; " + kPrivileged +
               "\ncounted privileged-gpu=deny\ncounted whole-units=deny"},
      {"modes: {rules: {privileged-gpu: warn}}",
       std::string("denied whole-units: ") + kWhole + "\nwarning: " + kPrivileged +
           "\ncounted privileged-gpu=warn\ncounted whole-units=deny"},
      {"modes: {default: warn}", std::string("allowed valid\nwarning: ") + kWhole +
                                     "\nwarning: " + kPrivileged +
                                     "\ncounted privileged-gpu=warn\ncounted whole-units=warn"},
      {"modes: {default: audit, rules: {whole-units: warn}}",
       std::string("allowed valid\nwarning: ") + kWhole + "\naudit privileged-gpu: " + kPrivileged +
           "\ncounted privileged-gpu=audit\ncounted whole-units=warn"},
      {"modes: {namespaces: [{pattern: \"team-*\", mode: audit}]}",
       std::string("allowed valid\naudit privileged-gpu: ") + kPrivileged +
           "\naudit whole-units: " + kWhole +
           "\ncounted privileged-gpu=audit\ncounted whole-units=audit"},
  };
  for (const auto& c : kCases) {
    Handler handler(SettingsFrom(c.config), nullptr);
    EXPECT_EQ(Render(handler.Validate(Decode(Review("p", "0.5", true)))), c.want) << c.config;
  }
}

// A namespace watch as the handler sees it: fixed labels per namespace.
class FixedLabels : public policy::NamespaceLabelSource {
 public:
  std::map<std::string, policy::NamespaceLabels, std::less<>> labels;
  bool ready = true;

  policy::NamespaceLabels Labels(std::string_view ns) const override {
    auto it = labels.find(ns);
    return it == labels.end() ? policy::NamespaceLabels{} : it->second;
  }
  bool Ready() const override { return ready; }
};

TEST(HandlerModes, ANamespaceLabelSetsTheModeUnlessTheConfigPinsTheNamespace) {
  FixedLabels labels;
  labels.labels["team-a"] = {.mode = Mode::kWarn};
  labels.labels["prod"] = {.mode = Mode::kAudit};
  Handler handler(SettingsFrom("modes: {namespaces: [{pattern: prod, mode: deny}]}"), nullptr,
                  &labels);
  EXPECT_EQ(Render(handler.Validate(Decode(Review("p", "0.5", false)))),
            std::string("allowed valid\nwarning: ") + kWhole + "\ncounted whole-units=warn");
  EXPECT_EQ(Render(handler.Validate(Decode(Review("p", "0.5", false, "prod")))),
            std::string("denied whole-units: ") + kWhole + "\ncounted whole-units=deny");
  EXPECT_EQ(Render(handler.Validate(Decode(Review("p", "0.5", false, "other")))),
            std::string("denied whole-units: ") + kWhole + "\ncounted whole-units=deny");
  EXPECT_TRUE(handler.Ready());
  labels.ready = false;
  EXPECT_FALSE(handler.Ready()) << "not ready until the namespaces are listed";
}

TEST(HandlerModes, QuotaInWarnAndAuditChargesPastTheLimitAndSaysSo) {
  const std::string exceeded =
      "exceeded quota: team-a, requested: nvidia.com/gpu=1, used: nvidia.com/gpu=1, limited: "
      "nvidia.com/gpu=1";
  const struct {
    const char* modes;
    std::string want;
    const char* usage;
  } kCases[] = {
      {"", "denied quota-exceeded: " + exceeded + "\ncounted quota=deny",
       "team-a{nvidia.com/gpu=1/1}"},
      {"modes: {rules: {quota: warn}}",
       "allowed charged\nwarning: " + exceeded + "\ncounted quota=warn",
       "team-a{nvidia.com/gpu=2/1}"},
      {"modes: {default: audit}",
       "allowed charged\naudit quota: " + exceeded + "\ncounted quota=audit",
       "team-a{nvidia.com/gpu=2/1}"},
  };
  for (const auto& c : kCases) {
    auto config = config::ParseConfig(
        std::string(c.modes) + "\nquota: {namespaces: {team-a: {nvidia.com/gpu: 1}}}\n", "x");
    ASSERT_TRUE(config) << config.error().message;
    quota::Ledger ledger(config->quota, nullptr);
    ASSERT_TRUE(ledger.Open());
    Handler handler(config->policy, &ledger);
    EXPECT_EQ(Render(handler.Validate(Decode(Review("first", "1", false)))), "allowed charged");
    EXPECT_EQ(Render(handler.Validate(Decode(Review("second", "1", false)))), c.want) << c.modes;
    EXPECT_EQ(quota::testutil::RenderUsage(ledger, "team-a"), c.usage) << c.modes;
  }
}

TEST(HandlerModes, MutateRefusesOnlyInDenyModeAndCanBeSwitchedOff) {
  const json fractional = Review("p", "0.5", false);
  const json whole = Review("p", "1", true);  // privileged: a finding, but patchable
  {
    Handler handler(SettingsFrom("modes: {rules: {privileged-gpu: warn}}"), nullptr);
    EXPECT_EQ(Render(handler.Mutate(Decode(fractional))),
              std::string("denied whole-units: ") + kWhole + "\ncounted whole-units=deny");
    // Warn-mode findings are /validate's to report; /mutate patches.
    EXPECT_EQ(Render(handler.Mutate(Decode(whole))), "allowed patched\npatched");
  }
  {
    FixedLabels labels;
    labels.labels["team-a"] = {.mutate = false};
    Handler handler(SettingsFrom("modes: {default: warn}"), nullptr, &labels);
    EXPECT_EQ(Render(handler.Mutate(Decode(whole))), "allowed mutation-off");
    EXPECT_EQ(Render(handler.Mutate(Decode(Review("p", "1", true, "team-b")))),
              "allowed patched\npatched");
  }
  {
    Handler handler(SettingsFrom("modes: {namespaces: [{pattern: \"*\", mutate: false}]}"),
                    nullptr);
    EXPECT_EQ(Render(handler.Mutate(Decode(fractional))),
              std::string("denied whole-units: ") + kWhole + "\ncounted whole-units=deny")
        << "mutate: false stops the patch, not the refusal";
    EXPECT_EQ(Render(handler.Mutate(Decode(Review("p", "1", false)))), "allowed mutation-off");
  }
}

}  // namespace
}  // namespace gpugate::admission
