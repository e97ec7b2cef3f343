// GPUBudget objects: what an object must say, which budget applies to a namespace when several
// match (the precedence in gpu_budget.h), and the watch that keeps them, the config's budgets
// behind them.
#include "cluster/gpu_budget.h"

#include <gtest/gtest.h>

#include "standin/standin.h"
#include "support/eventually.h"

namespace gpugate::cluster {
namespace {

using nlohmann::json;
using quota::kMilli;

json Object(const std::string& name, json spec) {
  return {{"apiVersion", "gpugate.io/v1alpha1"},
          {"kind", "GPUBudget"},
          {"metadata", {{"name", name}}},
          {"spec", std::move(spec)}};
}

TEST(GpuBudgetTest, ReadsAnObjectOrSaysWhatIsWrong) {
  struct Case {
    const char* spec;
    const char* want;  // "limit=milli period warnAt", or the error
  };
  const Case cases[] = {
      {R"({"namespaces": ["team-a"], "period": "month", "gpuHours": {"nvidia.com/gpu@a100": "500"},
           "warnAt": 90})",
       "nvidia.com/gpu@a100=500000 month 90"},
      {R"({"namespaces": ["team-*"], "period": "rolling:720h", "gpuHours": {"gpu-equivalents": 2.5}})",
       "gpu-equivalents=2500 rolling:720h 80"},
      {R"({"namespaces": [], "period": "week", "gpuHours": {"x": "1"}})",
       "spec.namespaces: want a list of namespace names or patterns"},
      {R"({"namespaces": ["a"], "period": "fortnight", "gpuHours": {"x": "1"}})", "spec.period: "},
      {R"({"namespaces": ["a"], "period": "rolling:10m", "gpuHours": {"x": "1"}})",
       "spec.period: a rolling window in a GPUBudget must be 24h or longer"},
      {R"({"namespaces": ["a"], "period": "rolling:8100h", "gpuHours": {"x": "1"}})",
       "spec.period: rolling:8100h is longer than the history kept (usage.historyMonths: 13 keeps "
       "336 days for certain)"},
      {R"({"namespaces": ["a"], "period": "week", "gpuHours": {}})",
       "spec.gpuHours: must map at least one resource or figure to GPU-hours"},
      {R"({"namespaces": ["a"], "period": "week", "gpuHours": {"x": "-1"}})",
       "spec.gpuHours.x: want a number of GPU-hours with at most 3 decimals, got \"-1\""},
      {R"({"namespaces": ["a"], "period": "week", "gpuHours": {"x": "1"}, "warnAt": 101})",
       "spec.warnAt: want a percentage from 0 (no warning) to 100, got 101"},
  };
  for (const Case& c : cases) {
    Result<BudgetObject> read = DecodeGpuBudget(Object("b", json::parse(c.spec)), 13);
    std::string got;
    if (read) {
      for (const auto& [limit, milli] : read->budget.gpuHours) {
        got += limit + "=" + std::to_string(milli);
      }
      got += " " + usage::FormatPeriodSpec(read->budget.period) + " " +
             std::to_string(read->budget.warnAtPercent);
    } else {
      got = read.error().message;
    }
    EXPECT_TRUE(got.starts_with(c.want)) << c.spec << "\n  got: " << got;
  }
  EXPECT_FALSE(DecodeGpuBudget(Object("b", nullptr), 13));
}

// Which object's budget a namespace gets: the most specific matching pattern, then the name.
TEST(GpuBudgetTest, TheMostSpecificPatternWinsThenTheObjectsName) {
  auto object = [](std::vector<std::string> patterns, int64_t hours) {
    BudgetObject o{.namespaces = std::move(patterns)};
    o.budget.gpuHours = {{"nvidia.com/gpu", hours * kMilli}};
    return o;
  };
  const std::map<std::string, BudgetObject> objects = {
      {"everyone", object({"*"}, 1)},
      {"research", object({"research-*"}, 2)},
      {"research-vision", object({"research-vis*"}, 3)},
      {"team-a", object({"team-a", "team-a-*"}, 4)},
      {"z-team-a", object({"team-a"}, 5)},  // as specific as "team-a"'s: the first name wins
  };
  struct Case {
    const char* ns;
    int64_t want;  // GPU-hours of the budget that applies
  };
  const Case cases[] = {
      {"team-a", 4}, {"team-a-dev", 4}, {"research-nlp", 2}, {"research-vision", 3}, {"sales", 1}};
  for (const Case& c : cases) {
    std::optional<usage::Budget> budget = ObjectBudgetFor(objects, c.ns);
    ASSERT_TRUE(budget) << c.ns;
    EXPECT_EQ(budget->gpuHours.at("nvidia.com/gpu"), c.want * kMilli) << c.ns;
  }
  EXPECT_FALSE(ObjectBudgetFor({{"team-a", object({"team-a"}, 1)}}, "team-b"));
}

// The watch: objects as they are created, changed and deleted, a malformed one reported and
// ignored, and the config's budgets for the namespaces no object names.
TEST(GpuBudgetTest, WatchesTheObjectsBeforeTheConfigsBudgets) {
  testing::StandInApiServer api({.token = "t"});
  std::unique_ptr<ApiClient> client = api.InMemoryClient();
  usage::UsageConfig config;
  config.budgets.push_back({.pattern = "*", .gpuHours = {{"nvidia.com/gpu", 7 * kMilli}}});
  std::mutex mu;
  std::vector<std::string> errors;
  GpuBudgets budgets(*client, config, [&](const std::string& m) {
    std::lock_guard lock(mu);
    errors.push_back(m);
  });
  auto hours = [&](const char* ns) {
    std::optional<usage::Budget> b = budgets.For(ns);
    return b ? b->gpuHours.at("nvidia.com/gpu") / kMilli : -1;
  };
  const std::string path(kGpuBudgetCollection);
  api.Create(path, Object("team-a", {{"namespaces", {"team-a"}},
                                     {"period", "month"},
                                     {"gpuHours", {{"nvidia.com/gpu", "100"}}}}));
  budgets.Start();
  ASSERT_TRUE(
      gpugate::testing::Eventually([&] { return budgets.Synced(); }, std::chrono::seconds(10)));
  EXPECT_EQ(hours("team-a"), 100);
  EXPECT_EQ(hours("team-b"), 7);  // the config's

  json changed = api.Get(path + "/team-a");
  changed["spec"]["gpuHours"]["nvidia.com/gpu"] = "200";
  api.Update(path + "/team-a", changed);
  EXPECT_TRUE(gpugate::testing::Eventually([&] { return hours("team-a") == 200; },
                                           std::chrono::seconds(10)));
  api.Create(path, Object("broken", {{"namespaces", {"team-b"}}, {"period", "daily"}}));
  EXPECT_TRUE(gpugate::testing::Eventually(
      [&] {
        std::lock_guard lock(mu);
        return !errors.empty() &&
               errors.back().starts_with("GPUBudget broken applies to no namespace: spec.period");
      },
      std::chrono::seconds(10)));
  EXPECT_EQ(hours("team-b"), 7);
  api.Delete(path + "/team-a");
  EXPECT_TRUE(
      gpugate::testing::Eventually([&] { return hours("team-a") == 7; }, std::chrono::seconds(10)));
  budgets.Stop();
}

}  // namespace
}  // namespace gpugate::cluster
