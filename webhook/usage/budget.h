// GPU-hour budgets: what the config sets (UsageConfig) and the check a new GPU pod goes through.
//
// "Spent" means the namespace's usage in the current period has reached the limit: a pod is
// refused when it would add to a figure whose budget is already used up, and a pod admitted
// below the limit is never stopped later, whatever it then runs up. An admission webhook
// refuses; it does not evict (docs/quota.md, "GPU-hour budgets and usage").
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "policy/modes.h"
#include "quota/amounts.h"
#include "usage/period.h"
#include "usage/usage_book.h"

namespace gpugate::usage {

// The name budget refusals are configured (modes), counted and annotated under.
using policy::kBudgetRule;

// One entry of usage.budgets.
struct Budget {
  std::string pattern;  // a namespace name, '*' standing for any run of characters
  PeriodSpec period;
  // limit name -> milli-GPU-hours: a resource or weighted figure ("nvidia.com/gpu",
  // "gpu-equivalents", every model of it) or one model of it ("nvidia.com/gpu@a100").
  quota::Amounts gpuHours;
  int warnAtPercent = 80;  // the early warning; 0: none
};

// The usage section of the config file (docs/configuration.md, "usage").
struct UsageConfig {
  std::string timeZone = "UTC";  // the local days and calendar periods are this zone's
  int historyMonths = 13;        // the current month and the 12 before it
  size_t maxRecordBytes = 256 * 1024;
  std::vector<Budget> budgets;  // the first entry whose pattern matches a namespace applies
};

// The budget for namespace `ns`, or nullptr.
const Budget* BudgetFor(const UsageConfig& config, std::string_view ns);

// The book's options for `config`: its history, its size bound and, as the exact window, the
// longest rolling window shorter than a day.
BookOptions BookOptionsFor(const UsageConfig& config);

enum class BudgetState { kWithin, kNearing, kSpent };

struct BudgetCheck {
  BudgetState state = BudgetState::kWithin;
  std::string message;  // "" when within
};

// Judges a new pod in `ns` charged `charge` (quota::PodCharge) under `budget`, given `spent` =
// Spent(book, running pods, period.span) (spent.h) and `period` = PeriodAt(budget.period, ...):
//   1. Only the limits the charge has a positive entry for count.
//   2. kSpent when any of them is used up (spent >= limit):
//        "exceeded GPU-hour budget: team-a, used: nvidia.com/gpu=2000.5, limited:
//         nvidia.com/gpu=2000 GPU-hours in month 2026-11 (Europe/Berlin); renews at
//         2026-12-01T00:00:00+01:00"
//   3. Else kNearing when any has reached warnAtPercent of its limit:
//        "GPU-hour budget 85% spent: team-a, used: nvidia.com/gpu=1700, limited: ..."
//   4. Else kWithin.
// The lists name only the limits in that state, sorted; figures are GPU-hours to the thousandth,
// rounded down.
BudgetCheck CheckBudget(const Budget& budget, std::string_view ns,
                        const std::map<UsageKey, int64_t>& spent, const quota::Amounts& charge,
                        const Period& period, const TimeZone& zone);

// Milli-GPU-seconds as GPU-hours to the thousandth, rounded down: "2000.5".
std::string FormatGpuHours(int64_t milliGpuSeconds);

}  // namespace gpugate::usage
