// Long findings in warn mode through the handler: every finding reaches the user, whole or in its
// short form, in order, within the API's limits, and whole in the audit annotation and the log
// line's list (Decision::findings). One table row per rule whose message can run long, and the
// depths gpugate meets: a Pod, a Deployment, a PyTorchJob.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "admission/handler.h"
#include "config/config.h"
#include "quota/ledger.h"
#include "review/admission_review.h"

namespace gpugate::admission {
namespace {

using nlohmann::json;

// Four GPU UUIDs, as nvidia-smi -L prints them: a 291-character visible-devices finding.
std::string Uuids(int n) {
  std::string out;
  for (int i = 0; i < n; ++i) {
    out += (i ? "," : "") + std::string("GPU-8f2c1d3e-5a6b-4c7d-9e0f-1a2b3c4d5e6") +
           std::to_string(i % 10);
  }
  return out;
}

// A container named `name` that breaks every rule the default config holds in one way or another.
json Offender(const std::string& name, int uuids) {
  return {{"name", name},
          {"image", "cuda:12"},
          {"securityContext", {{"privileged", true}}},
          {"env", json::array({{{"name", "NVIDIA_VISIBLE_DEVICES"}, {"value", Uuids(uuids)}}})},
          {"resources",
           {{"limits",
             {{"nvidia.com/gpu", "0.5"},
              {"tencent.com/vcuda-core", "250"},
              {"volcano.sh/gpu-memory", "1024"}}},
            {"requests", {{"nvidia.com/gpu", "0.25"}, {"tencent.com/vcuda-core", "150"}}}}}};
}

json PodSpec(const std::string& name, int uuids) {
  return {{"containers", json::array({Offender(name, uuids)})},
          {"nodeName", "gpu-node-" + std::string(80, 'n')}};
}

json Review(const std::string& group, const std::string& kind, const std::string& resource,
            json object) {
  object["metadata"] = {{"name", "w"},
                        {"namespace", "team-w"},
                        {"uid", "uid-w"},
                        {"annotations", {{"tencent.com/vcuda-core-limit", std::string(300, '9')}}}};
  return {{"apiVersion", "admission.k8s.io/v1"},
          {"kind", "AdmissionReview"},
          {"request",
           {{"uid", "req"},
            {"kind", {{"group", group}, {"version", "v1"}, {"kind", kind}}},
            {"resource", {{"group", group}, {"version", "v1"}, {"resource", resource}}},
            {"namespace", "team-w"},
            {"operation", "CREATE"},
            {"object", object}}}};
}

json Template(const json& spec) {
  return {{"metadata", {{"annotations", {{"tencent.com/vcuda-core-limit", "0"}}}}}, {"spec", spec}};
}

size_t Runes(std::string_view s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

constexpr char kConfig[] = R"(modes: {default: warn}
quota:
  flavors:
    a100: {nodeLabels: {nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB}}
    h100: {nodeLabels: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}}
    l40s: {nodeLabels: {nvidia.com/gpu.product: NVIDIA-L40S}}
    t4: {nodeLabels: {nvidia.com/gpu.product: Tesla-T4}}
  namespaces:
    team-w: {nvidia.com/gpu@a100: 1, nvidia.com/gpu@t4: 4}
)";

TEST(HandlerWarnings, EveryLongFindingReachesTheUserWholeOrShortInOrder) {
  auto config = config::ParseConfig(kConfig, "gpugate.yaml");
  ASSERT_TRUE(config) << config.error().message;
  quota::Ledger ledger(config->quota, nullptr);
  ASSERT_TRUE(ledger.Open());
  const Handler handler(config->policy, &ledger);
  const std::string longName(63, 'x');
  const struct {
    const char* name;
    json review;
  } kCases[] = {
      {"Pod", Review("", "Pod", "pods", {{"spec", PodSpec("trainer", 4)}})},
      {"Pod with a 63-character container name",
       Review("", "Pod", "pods", {{"spec", PodSpec(longName, 12)}})},
      {"Deployment", Review("apps", "Deployment", "deployments",
                            {{"spec", {{"template", Template(PodSpec("server", 4))}}}})},
      {"PyTorchJob", Review("kubeflow.org", "PyTorchJob", "pytorchjobs",
                            {{"spec",
                              {{"pytorchReplicaSpecs",
                                {{"Master", {{"template", Template(PodSpec(longName, 6))}}},
                                 {"Worker", {{"template", Template(PodSpec("worker", 4))}}}}}}}})},
  };
  for (const auto& c : kCases) {
    SCOPED_TRACE(c.name);
    auto request = review::DecodeReview(c.review.dump());
    ASSERT_TRUE(request) << request.error().message;
    const review::Decision d = handler.Validate(*request);
    ASSERT_TRUE(d.allowed) << d.message;
    // Within the API's limits, every warning whole.
    ASSERT_FALSE(d.warnings.empty());
    EXPECT_LE(d.warnings.size(), review::kMaxWarnings);
    size_t total = 0;
    for (const std::string& w : d.warnings) {
      EXPECT_LE(Runes(w), review::kWarningMaxRunes) << w;
      total += Runes(w);
    }
    EXPECT_LE(total, review::kWarningsMaxRunes);
    // The log line's list: every finding, whole, every rule of the config among them.
    std::set<std::string> rules;
    for (const review::LoggedFinding& f : d.findings) {
      EXPECT_EQ(f.mode, "warn");
      rules.insert(f.rule);
    }
    EXPECT_EQ(rules,
              (std::set<std::string>{"core-limit-annotation", "privileged-gpu", "quota",
                                     "requests-equal-limits", "scheduler", "vcuda-core-shares",
                                     "visible-devices-env", "whole-units"}));
    // In order: each finding is the next warning, whole or short (naming its rule), until the
    // summary counts the rest.
    size_t next = 0, shortened = 0;
    for (const review::LoggedFinding& f : d.findings) {
      ASSERT_LT(next, d.warnings.size());
      const std::string& w = d.warnings[next];
      if (w.starts_with("and ")) break;
      ++next;
      if (w == f.message) continue;
      ++shortened;
      EXPECT_GT(Runes(f.message), review::kWarningMaxRunes) << "sent short although it fits";
      EXPECT_NE(w.find("(gpugate rule " + f.rule), std::string::npos) << w;
    }
    EXPECT_GT(shortened, 0u);
    const size_t hidden = d.findings.size() - next;
    if (hidden > 0) {
      ASSERT_EQ(next + 1, d.warnings.size());
      EXPECT_TRUE(d.warnings.back().starts_with("and " + std::to_string(hidden) + " more"))
          << d.warnings.back();
      EXPECT_TRUE(d.warnings.back().ends_with(" lists them all")) << d.warnings.back();
    }
    // The whole text of what was shortened or left out, in the audit annotation.
    ASSERT_FALSE(d.auditAnnotations.empty());
    EXPECT_EQ(d.auditAnnotations.back().key, "warnings");
    EXPECT_GE(d.auditAnnotations.back().value.size(), review::kWarningMaxRunes);
  }
}

TEST(HandlerWarnings, TheUnpinnedQuotaFindingKeepsItsFixInShortForm) {
  auto config = config::ParseConfig(kConfig, "gpugate.yaml");
  ASSERT_TRUE(config) << config.error().message;
  quota::Ledger ledger(config->quota, nullptr);
  ASSERT_TRUE(ledger.Open());
  const Handler handler(config->policy, &ledger);
  json review =
      Review("", "Pod", "pods",
             {{"spec",
               {{"containers",
                 json::array({{{"name", "c"},
                               {"image", "cuda:12"},
                               {"resources", {{"limits", {{"nvidia.com/gpu", "1"}}}}}}})}}}});
  review["request"]["object"]["metadata"].erase("annotations");
  auto request = review::DecodeReview(review.dump());
  ASSERT_TRUE(request);
  const review::Decision d = handler.Validate(*request);
  ASSERT_TRUE(d.allowed);
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_GT(Runes(d.findings[0].message), review::kWarningMaxRunes);
  EXPECT_EQ(d.warnings,
            std::vector<std::string>{
                "spec.nodeSelector: namespace team-w sets GPU quota per model; pin this pod to "
                "one of a100, h100, l40s, t4 (gpugate rule quota; whole text in gpugate's log "
                "and audit annotations)"});
  EXPECT_EQ(d.auditAnnotations,
            (std::vector<review::AuditAnnotation>{{"warnings", d.findings[0].message}}));
}

}  // namespace
}  // namespace gpugate::admission
