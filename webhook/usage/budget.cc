#include "usage/budget.h"

#include <algorithm>

#include "common/go_duration.h"
#include "common/strings.h"
#include "usage/spent.h"

namespace gpugate::usage {
namespace {

std::string Join(const quota::Amounts& figures) {
  std::string out;
  for (const auto& [name, milliGpuSeconds] : figures) {
    if (!out.empty()) out += ',';
    out += name + "=" + FormatGpuHours(milliGpuSeconds);
  }
  return out;
}

std::string Renewal(const Budget& budget, const Period& period, const TimeZone& zone) {
  if (period.renews) return "; renews at " + zone.Rfc3339(*period.renews);
  return "; usage older than " +
         FormatGoDuration(
             std::chrono::duration_cast<std::chrono::milliseconds>(budget.period.window)) +
         " stops counting";
}

}  // namespace

std::string FormatGpuHours(int64_t milliGpuSeconds) {
  return quota::FormatMilli(milliGpuSeconds / 3600);
}

const Budget* BudgetFor(const UsageConfig& config, std::string_view ns) {
  for (const Budget& b : config.budgets) {
    if (GlobMatch(b.pattern, ns)) return &b;
  }
  return nullptr;
}

BookOptions BookOptionsFor(const UsageConfig& config) {
  BookOptions options{.historyMonths = config.historyMonths, .maxBytes = config.maxRecordBytes};
  for (const Budget& b : config.budgets) {
    if (b.period.kind == PeriodKind::kRolling && b.period.window < std::chrono::days(1)) {
      options.exactWindow = std::max(options.exactWindow, b.period.window);
    }
  }
  return options;
}

BudgetCheck CheckBudget(const Budget& budget, std::string_view ns,
                        const std::map<UsageKey, int64_t>& spent, const quota::Amounts& charge,
                        const Period& period, const TimeZone& zone) {
  quota::Amounts overUsed, overLimited, nearUsed, nearLimited;
  int percent = 0;
  for (const auto& [name, milliHours] : budget.gpuHours) {
    auto want = charge.find(name);
    if (want == charge.end() || want->second <= 0) continue;
    __int128 limit = static_cast<__int128>(milliHours) * 3600;
    __int128 used = SpentOn(spent, ns, name);
    if (used >= limit) {
      overUsed[name] = SpentOn(spent, ns, name);
      overLimited[name] = milliHours * 3600;
    } else if (budget.warnAtPercent > 0 && used * 100 >= limit * budget.warnAtPercent) {
      nearUsed[name] = SpentOn(spent, ns, name);
      nearLimited[name] = milliHours * 3600;
      percent = std::max(percent, static_cast<int>(used * 100 / limit));
    }
  }
  BudgetCheck check;
  std::string what = std::string(ns) + ", used: ";
  if (!overUsed.empty()) {
    check.state = BudgetState::kSpent;
    what += Join(overUsed) + ", limited: " + Join(overLimited);
    check.message = "exceeded GPU-hour budget: " + what;
  } else if (!nearUsed.empty()) {
    check.state = BudgetState::kNearing;
    what += Join(nearUsed) + ", limited: " + Join(nearLimited);
    check.message = "GPU-hour budget " + std::to_string(percent) + "% spent: " + what;
  } else {
    return check;
  }
  check.message +=
      " GPU-hours " + DescribePeriod(budget.period, period, zone) + Renewal(budget, period, zone);
  return check;
}

}  // namespace gpugate::usage
