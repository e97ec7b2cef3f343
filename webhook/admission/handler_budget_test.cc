// GPU-hour budgets through the handler: a GPU pod's CREATE in a namespace whose budget is spent
// is refused in the budget rule's deny mode, admitted with a warning in warn mode and an audit
// annotation in audit mode; a nearly spent budget warns; pods without a GPU, and namespaces
// without a budget, are never asked. The usage comes from a real ledger's ended charges.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "admission/handler.h"
#include "config/config.h"
#include "quota/ledger.h"
#include "review/admission_review.h"
#include "usage/usage_keeper.h"

namespace gpugate::admission {
namespace {

using nlohmann::json;

WallClock::time_point At(std::string_view rfc3339) { return *ParseRfc3339(rfc3339); }

json Review(const std::string& ns, const char* gpu, bool dryRun = false) {
  json container = {{"name", "trainer"}, {"image", "cuda:12"}};
  if (gpu) container["resources"] = {{"limits", {{"nvidia.com/gpu", gpu}}}};
  json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", "new"}, {"namespace", ns}, {"uid", "uid-new"}}},
              {"spec", {{"containers", json::array({container})}}}};
  return {{"apiVersion", "admission.k8s.io/v1"},
          {"kind", "AdmissionReview"},
          {"request",
           {{"uid", "req"},
            {"kind", {{"group", ""}, {"version", "v1"}, {"kind", "Pod"}}},
            {"resource", {{"group", ""}, {"version", "v1"}, {"resource", "pods"}}},
            {"name", "new"},
            {"namespace", ns},
            {"operation", "CREATE"},
            {"dryRun", dryRun},
            {"object", pod}}}};
}

std::string Render(const review::Decision& d) {
  std::string out = d.allowed ? "allowed " + d.reason : "denied " + d.reason + ": " + d.message;
  for (const std::string& w : d.warnings) out += "\nwarning: " + w;
  for (const auto& a : d.auditAnnotations) out += "\naudit " + a.key + ": " + a.value;
  for (const auto& v : d.violated) out += "\ncounted " + v.rule + "=" + v.mode;
  return out;
}

constexpr char kBudget[] =
    "usage:\n"
    "  budgets:\n"
    "  - {pattern: team-a, period: month, gpuHours: {nvidia.com/gpu: 10}, warnAt: 80}\n";

constexpr char kSpent[] =
    "exceeded GPU-hour budget: team-a, used: nvidia.com/gpu=10, limited: nvidia.com/gpu=10 "
    "GPU-hours in month 2026-11 (UTC); renews at 2026-12-01T00:00:00+00:00";
constexpr char kNearing[] =
    "GPU-hour budget 85% spent: team-a, used: nvidia.com/gpu=8.5, limited: nvidia.com/gpu=10 "
    "GPU-hours in month 2026-11 (UTC); renews at 2026-12-01T00:00:00+00:00";

struct Case {
  const char* name;
  const char* modes;    // the config's modes section, or ""
  const char* started;  // when team-a's one finished pod (1 GPU, ended 20:00) started
  std::string ns = "team-a";
  const char* gpu = "1";
  bool dryRun = false;
  std::string want;
};

const Case kCases[] = {
    {.name = "spent, deny",
     .modes = "",
     .started = "2026-11-27T10:00:00Z",
     .want = std::string("denied budget-spent: ") + kSpent + "\ncounted budget=deny"},
    {.name = "spent, dry run",
     .modes = "",
     .started = "2026-11-27T10:00:00Z",
     .dryRun = true,
     .want = std::string("denied budget-spent: ") + kSpent + "\ncounted budget=deny"},
    {.name = "spent, warn",
     .modes = "modes: {rules: {budget: warn}}\n",
     .started = "2026-11-27T10:00:00Z",
     .want = std::string("allowed charged\nwarning: ") + kSpent + "\ncounted budget=warn"},
    {.name = "spent, audit",
     .modes = "modes: {rules: {budget: audit}}\n",
     .started = "2026-11-27T10:00:00Z",
     .want = std::string("allowed charged\naudit budget: ") + kSpent + "\ncounted budget=audit"},
    {.name = "spent, pod without a GPU",
     .modes = "",
     .started = "2026-11-27T10:00:00Z",
     .gpu = nullptr,
     .want = "allowed valid"},
    {.name = "nearing: an early warning",
     .modes = "",
     .started = "2026-11-27T11:30:00Z",
     .want = std::string("allowed charged\nwarning: ") + kNearing + "\ncounted budget=warn"},
    {.name = "within", .modes = "", .started = "2026-11-27T18:00:00Z", .want = "allowed charged"},
    {.name = "another namespace",
     .modes = "",
     .started = "2026-11-27T10:00:00Z",
     .ns = "team-b",
     .want = "allowed charged"},
};

TEST(HandlerBudget, ASpentBudgetAnswersInTheBudgetRulesMode) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    auto config = config::ParseConfig(std::string(kBudget) + c.modes, "gpugate.yaml");
    ASSERT_TRUE(config) << config.error().message;
    auto keeper = usage::UsageKeeper::Create(config->usage);
    ASSERT_TRUE(keeper);
    WallClock::time_point now = At("2026-11-27T20:00:00Z");
    quota::Ledger ledger(config->quota, nullptr,
                         {.clock = [&now] { return now; }, .usage = keeper->get()});
    ASSERT_TRUE(ledger.Open());
    const quota::PodRef old{"team-a", "old", "uid-old"};
    ASSERT_TRUE(ledger.Reserve(old, {{"nvidia.com/gpu", 1000}}, false));
    ASSERT_TRUE(ledger.RecordStart(old, At(c.started), quota::kNoDeadline));
    ASSERT_TRUE(ledger.Release(old));
    const Handler handler(config->policy, &ledger, nullptr, keeper->get());
    auto request = review::DecodeReview(Review(c.ns, c.gpu, c.dryRun).dump());
    ASSERT_TRUE(request) << request.error().message;
    review::Decision decision = handler.Validate(*request);
    EXPECT_EQ(Render(decision), c.want);
    // A refusal charges nothing.
    const bool charged = !ledger.Charges().empty();
    EXPECT_EQ(charged, decision.allowed && c.gpu && !c.dryRun);
  }
}

}  // namespace
}  // namespace gpugate::admission
