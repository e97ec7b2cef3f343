#include "usage/spend_report.h"

#include <gtest/gtest.h>

namespace gpugate::usage {
namespace {

constexpr int64_t kHour = kMilliGpuSecondsPerHour;

const BudgetStanding kStandings[] = {
    {"team-a", "nvidia.com/gpu@a100", "month", 500'000, 412'500 * kHour / 1000},
    {"team-a", "gpu-equivalents", "rolling:720h", 800'000, 900 * kHour},
};

UsageReport Month() {
  UsageReport r{.timeZone = "UTC", .by = GroupBy::kNamespace};
  r.rows = {{.ns = "team-a", .resource = "gpu-equivalents", .milliGpuSeconds = 420 * kHour},
            {.ns = "team-a", .resource = "nvidia.com/gpu", .milliGpuSeconds = 420 * kHour},
            {.ns = "team-b", .resource = "nvidia.com/gpu", .milliGpuSeconds = 3 * kHour}};
  return r;
}

TEST(SpendReport, BudgetsAndTheMonthsSpendAsATable) {
  const std::vector<SpendRow> rows = SpendRows(kStandings, Month());
  EXPECT_EQ(SpendTable(rows),
            "NAMESPACE   SPENT ON              PERIOD         GPU-HOURS   BUDGET   SPENT%\n"
            "team-a      gpu-equivalents       month          420         -        -\n"
            "team-a      gpu-equivalents       rolling:720h   900         800      112%\n"
            "team-a      nvidia.com/gpu        month          420         -        -\n"
            "team-a      nvidia.com/gpu@a100   month          412.5       500      82%\n"
            "team-b      nvidia.com/gpu        month          3           -        -\n");
  EXPECT_EQ(SpendTable(SpendRows(kStandings, Month(), "team-b")),
            "NAMESPACE   SPENT ON         PERIOD   GPU-HOURS   BUDGET   SPENT%\n"
            "team-b      nvidia.com/gpu   month    3           -        -\n");
  // Nothing spent, nothing shown: the quota table stands alone.
  EXPECT_EQ(SpendTable(SpendRows({}, UsageReport{})), "");
}

// A monthly budget on a resource takes the place of the month's row for it.
TEST(SpendReport, AMonthlyBudgetReplacesTheMonthsRow) {
  const BudgetStanding monthly[] = {{"team-b", "nvidia.com/gpu", "month", 10'000, 3 * kHour}};
  EXPECT_EQ(SpendTable(SpendRows(monthly, Month(), "team-b")),
            "NAMESPACE   SPENT ON         PERIOD   GPU-HOURS   BUDGET   SPENT%\n"
            "team-b      nvidia.com/gpu   month    3           10       30%\n");
}

TEST(SpendReport, JsonBesideTheQuotaReportAndBack) {
  const std::string quota = R"({"namespaces":[]})";
  EXPECT_EQ(WithSpendJson(quota, {}), quota);
  const std::vector<SpendRow> rows = SpendRows(kStandings, Month(), "team-a");
  const std::string json = WithSpendJson(quota, rows);
  EXPECT_EQ(
      json,
      R"({"namespaces":[],"spend":[)"
      R"({"namespace":"team-a","limit":"gpu-equivalents","period":"month","spentGpuHours":420.0},)"
      R"({"namespace":"team-a","limit":"gpu-equivalents","period":"rolling:720h","spentGpuHours":900.0,"budgetGpuHours":800.0},)"
      R"({"namespace":"team-a","limit":"nvidia.com/gpu","period":"month","spentGpuHours":420.0},)"
      R"({"namespace":"team-a","limit":"nvidia.com/gpu@a100","period":"month","spentGpuHours":412.5,"budgetGpuHours":500.0}]})");
  Result<std::vector<SpendRow>> back = ParseSpendJson(json);
  ASSERT_TRUE(back.has_value()) << back.error().message;
  EXPECT_EQ(*back, rows);
  EXPECT_EQ(ParseSpendJson(quota)->size(), 0u);
  const struct {
    const char* json;
    const char* error;
  } kBad[] = {
      {R"({"spend":{}})", "spend: must be a list"},
      {R"({"spend":[{"namespace":"a","limit":"b"}]})", "spend[0].period: must be a string"},
      {R"({"spend":[{"namespace":"a","limit":"b","period":"month","spentGpuHours":"1"}]})",
       "spend[0].spentGpuHours: must be a number >= 0"},
      {R"({"spend":[{"namespace":"a","limit":"b","period":"month","spentGpuHours":1,)"
       R"("budgetGpuHours":-2}]})",
       "spend[0].budgetGpuHours: must be a number >= 0"},
      {"[]", "not a JSON object"},
  };
  for (const auto& c : kBad) {
    Result<std::vector<SpendRow>> got = ParseSpendJson(c.json);
    ASSERT_FALSE(got.has_value()) << c.json;
    EXPECT_EQ(got.error().message, c.error);
  }
}

}  // namespace
}  // namespace gpugate::usage
