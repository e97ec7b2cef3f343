#include "usage/budget.h"

#include <gtest/gtest.h>

#include "usage/accruals.h"
#include "usage/spent.h"
#include "usage/testing.h"

namespace gpugate::usage {
namespace {

using namespace testing;

constexpr int64_t kHour = kMilliGpuSecondsPerHour;

Budget TeamA(const char* period = "month", int warnAt = 80) {
  return {.pattern = "team-a",
          .period = *ParsePeriodSpec(period),
          .gpuHours = {{"nvidia.com/gpu", 100'000}, {"nvidia.com/gpu@a100", 40'000}},
          .warnAtPercent = warnAt};
}

TEST(BudgetTest, CheckBudget) {
  const quota::Amounts plain = {{"nvidia.com/gpu", 1000}};
  const quota::Amounts a100 = {{"nvidia.com/gpu", 1000}, {"nvidia.com/gpu@a100", 1000}};
  const quota::Amounts vcuda = {{"tencent.com/vcuda-core", 50}};
  const char* kMonth =
      " GPU-hours in month 2026-11 (Europe/Berlin); renews at 2026-12-01T00:00:00+01:00";
  struct Case {
    const char* what;
    Budget budget;
    std::map<UsageKey, int64_t> spent;
    quota::Amounts pod;
    BudgetState state;
    std::string message;
  } cases[] = {
      {"half spent", TeamA(), {{Key("team-a"), 50 * kHour}}, plain, BudgetState::kWithin, ""},
      {"past warnAt",
       TeamA(),
       {{Key("team-a"), 85 * kHour + 1}},
       plain,
       BudgetState::kNearing,
       std::string("GPU-hour budget 85% spent: team-a, used: nvidia.com/gpu=85, limited: "
                   "nvidia.com/gpu=100") +
           kMonth},
      {"just under",
       TeamA(),
       {{Key("team-a"), 100 * kHour - 1}},
       plain,
       BudgetState::kNearing,
       std::string("GPU-hour budget 99% spent: team-a, used: nvidia.com/gpu=99.999, limited: "
                   "nvidia.com/gpu=100") +
           kMonth},
      {"used up",
       TeamA(),
       {{Key("team-a"), 100 * kHour}},
       plain,
       BudgetState::kSpent,
       std::string("exceeded GPU-hour budget: team-a, used: nvidia.com/gpu=100, limited: "
                   "nvidia.com/gpu=100") +
           kMonth},
      {"over, summed over models",
       TeamA(),
       {{Key("team-a"), 60 * kHour},
        {Key("team-a", "nvidia.com/gpu", "h100"), 50 * kHour + kHour / 2}},
       plain,
       BudgetState::kSpent,
       std::string("exceeded GPU-hour budget: team-a, used: nvidia.com/gpu=110.5, limited: "
                   "nvidia.com/gpu=100") +
           kMonth},
      {"a pod without the resource",
       TeamA(),
       {{Key("team-a"), 100 * kHour}},
       vcuda,
       BudgetState::kWithin,
       ""},
      {"the model's budget",
       TeamA(),
       {{Key("team-a", "nvidia.com/gpu", "a100"), 40 * kHour}},
       a100,
       BudgetState::kSpent,
       std::string("exceeded GPU-hour budget: team-a, used: nvidia.com/gpu@a100=40, limited: "
                   "nvidia.com/gpu@a100=40") +
           kMonth},
      {"another model is free",
       TeamA(),
       {{Key("team-a", "nvidia.com/gpu", "a100"), 40 * kHour}},
       plain,
       BudgetState::kWithin,
       ""},
      {"other namespaces do not count",
       TeamA(),
       {{Key("team-b"), 500 * kHour}},
       plain,
       BudgetState::kWithin,
       ""},
      {"no early warning",
       TeamA("month", 0),
       {{Key("team-a"), 99 * kHour}},
       plain,
       BudgetState::kWithin,
       ""},
      {"rolling",
       TeamA("rolling:10m"),
       {{Key("team-a"), 100 * kHour}},
       plain,
       BudgetState::kSpent,
       "exceeded GPU-hour budget: team-a, used: nvidia.com/gpu=100, limited: nvidia.com/gpu=100 "
       "GPU-hours in the last 10m; usage older than 10m stops counting"},
  };
  TimeZone berlin = Zone("Europe/Berlin");
  sys_seconds now = At(berlin, 2026, 11, 27, 12);
  for (const Case& c : cases) {
    Period period = PeriodAt(c.budget.period, berlin, now);
    BudgetCheck check = CheckBudget(c.budget, "team-a", c.spent, c.pod, period, berlin);
    EXPECT_EQ(check.state, c.state) << c.what;
    EXPECT_EQ(check.message, c.message) << c.what;
  }
}

// Spent at the end of one month is nothing at the start of the next, even with a pod running
// across the boundary: it counts in the new month from midnight on.
TEST(BudgetTest, RenewsAtThePeriodBoundary) {
  TimeZone berlin = Zone("Europe/Berlin");
  UsageBook book(berlin, {});
  quota::Amounts pod = {{"nvidia.com/gpu", 1000}};
  auto done = Accruals("team-a", {{"nvidia.com/gpu", 4000}},
                       {At(berlin, 2026, 11, 1), At(berlin, 2026, 11, 26, 1)});
  ASSERT_TRUE(book.Accrue(done).has_value());
  Budget budget = TeamA();
  struct Case {
    sys_seconds now;
    BudgetState state;
  } cases[] = {
      {At(berlin, 2026, 11, 30, 23, 59), BudgetState::kSpent},
      {At(berlin, 2026, 12, 1), BudgetState::kWithin},
      {At(berlin, 2026, 12, 1, 22), BudgetState::kWithin},
      {At(berlin, 2026, 12, 5), BudgetState::kNearing},  // 4 days of a running pod: 96 h
  };
  for (const Case& c : cases) {
    auto running = Accruals("team-a", pod, {At(berlin, 2026, 11, 30, 12), c.now});
    Period period = PeriodAt(budget.period, berlin, c.now);
    auto spent = Spent(book, running, period.span);
    EXPECT_EQ(CheckBudget(budget, "team-a", spent, pod, period, berlin).state, c.state)
        << berlin.Rfc3339(c.now);
  }
}

TEST(BudgetTest, FirstMatchingEntryApplies) {
  UsageConfig config;
  config.budgets = {{.pattern = "team-a"}, {.pattern = "team-*"}, {.pattern = "*-prod"}};
  struct Case {
    const char* ns;
    int entry;  // -1: none
  } cases[] = {{"team-a", 0}, {"team-b", 1}, {"team-prod", 1}, {"ml-prod", 2}, {"default", -1}};
  for (const Case& c : cases) {
    const Budget* b = BudgetFor(config, c.ns);
    EXPECT_EQ(b == nullptr ? -1 : static_cast<int>(b - config.budgets.data()), c.entry) << c.ns;
  }
}

TEST(BudgetTest, BookOptionsKeepTheLongestShortWindow) {
  UsageConfig config{.historyMonths = 3, .maxRecordBytes = 1000};
  config.budgets = {{.period = *ParsePeriodSpec("rolling:10m")},
                    {.period = *ParsePeriodSpec("rolling:2h")},
                    {.period = *ParsePeriodSpec("rolling:720h")},
                    {.period = *ParsePeriodSpec("month")}};
  BookOptions options = BookOptionsFor(config);
  EXPECT_EQ(options.exactWindow, std::chrono::hours(2));
  EXPECT_EQ(options.historyMonths, 3);
  EXPECT_EQ(options.maxBytes, 1000u);
  EXPECT_EQ(BookOptionsFor(UsageConfig{}).exactWindow, std::chrono::seconds(0));
}

}  // namespace
}  // namespace gpugate::usage
