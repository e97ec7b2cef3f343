// The GPU-hours each namespace has spent in the current period, shown beside its quota holdings
// by `gpugate quota` and GET /quota: what a budget has left, and what a namespace without one
// has run up this month.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "usage/report.h"
#include "usage/usage_view.h"

namespace gpugate::usage {

struct SpendRow {
  std::string ns;
  std::string limit;   // a budget's limit ("nvidia.com/gpu@a100") or a resource
  std::string period;  // the budget's period ("month", "rolling:720h"); "month" without one
  int64_t spentMilliGpuSeconds = 0;
  std::optional<int64_t> budgetMilliGpuHours;  // nullopt: no budget limits this

  bool operator==(const SpendRow&) const = default;
};

// The rows for `standings` (UsageView::Standings) and `month` (the current month's report by
// namespace), sorted by namespace, limit and period:
//   1. every standing, with its budget;
//   2. every row of `month` whose resource no monthly budget of its namespace names, without a
//      budget (a namespace's spend on what no budget limits, or on everything when it has none).
// Rows of other namespaces than `only` are left out, unless `only` is empty.
std::vector<SpendRow> SpendRows(std::span<const BudgetStanding> standings, const UsageReport& month,
                                std::string_view only = "");

// `quotaJson`, the JSON object of GET /quota (quota/report.h's UsageJson), with the rows as its
// "spend" member when there are any (the JSON is returned unchanged when there are none):
//   "spend":[{"namespace":"team-a","limit":"nvidia.com/gpu","period":"month",
//             "spentGpuHours":412.5,"budgetGpuHours":2000}]
// GPU-hours to the thousandth, rounded down; "budgetGpuHours" left out without a budget.
std::string WithSpendJson(std::string quotaJson, std::span<const SpendRow> rows);

// The "spend" member of a GET /quota answer; none when it has none. A mistyped field is an
// error naming its path (`spend[0].spentGpuHours`); unknown fields are ignored.
Result<std::vector<SpendRow>> ParseSpendJson(std::string_view quotaJson);

// Beside the quota table, when there are rows:
//   NAMESPACE   SPENT ON              PERIOD   GPU-HOURS   BUDGET   SPENT%
//   team-a      nvidia.com/gpu@a100   month    412.5       2000     20%
//   team-b      nvidia.com/gpu        month    3           -        -
// Empty when there are none. Ends with a newline.
std::string SpendTable(std::span<const SpendRow> rows);

}  // namespace gpugate::usage
