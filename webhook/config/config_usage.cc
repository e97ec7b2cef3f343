// The usage section: the time zone local days and calendar periods are counted in, how much
// history is kept, and GPU-hour budgets per namespace. docs/quota.md, "GPU-hour budgets and
// usage", explains them; docs/configuration.md lists the keys.
#include <string>
#include <utility>

#include "common/strings.h"
#include "common/time_zone.h"
#include "config/config_sections.h"
#include "usage/budget.h"

namespace gpugate::config {
namespace {

using usage::Budget;
using usage::UsageConfig;

// A budget of more than a billion GPU-hours is a typo; the bound keeps every figure in int64.
constexpr int64_t kMaxMilliGpuHours = int64_t{1'000'000'000} * quota::kMilli;

struct UsageSection {
  const Config& config;  // resources, quota.weights and quota.flavors, for the limits' names
  UsageConfig usage;
};

Status ReadTimeZone(const Cursor& value, UsageSection& s) {
  std::string name;
  if (auto st = value.ReadString(name); !st) return st;
  Result<TimeZone> zone = TimeZone::Load(name);
  if (!zone) return value.Fail(zone.error().message);
  s.usage.timeZone = std::move(name);
  return {};
}

Status ReadHistory(const Cursor& value, UsageSection& s) {
  int64_t months = 0;
  if (auto st = value.ReadPositiveInteger(months); !st || months > 120) {
    return value.FailExpected("a number of months from 1 to 120");
  }
  s.usage.historyMonths = static_cast<int>(months);
  return {};
}

// From 4 KiB to 3 MiB, kube-apiserver's bound on a request body (the record may be stored in a
// Kubernetes object).
Status ReadRecordBytes(const Cursor& value, UsageSection& s) {
  int64_t bytes = 0;
  if (auto st = value.ReadPositiveInteger(bytes); !st || bytes < 4096 || bytes > (3 << 20)) {
    return value.FailExpected("a number of bytes from 4096 to 3145728");
  }
  s.usage.maxRecordBytes = static_cast<size_t>(bytes);
  return {};
}

// --- budgets ---

struct BudgetItem {
  const Config& config;
  Budget budget;
  bool hasPattern = false, hasPeriod = false, hasHours = false;
};

Status ReadGpuHours(const Cursor& value, BudgetItem& item) {
  quota::Amounts hours;
  constexpr std::string_view kWhat = "a number of GPU-hours with at most 3 decimals";
  auto st = VisitEntries(
      value, [&](const std::string& name, const Cursor& keyAt, const Cursor& limit) -> Status {
        auto st = CheckLimitName(keyAt, name, item.config.policy, item.config.quota);
        if (!st) return st;
        if (!limit.node().IsScalar() || limit.IsQuoted()) return limit.FailExpected(kWhat);
        Result<int64_t> milli = quota::ParseMilli(limit.node().Scalar());
        if (!milli || *milli > kMaxMilliGpuHours) return limit.FailExpected(kWhat);
        hours[name] = *milli;
        return {};
      });
  if (!st) return st;
  if (hours.empty()) return value.Fail("must limit at least one resource or figure");
  item.budget.gpuHours = std::move(hours);
  item.hasHours = true;
  return {};
}

constexpr Field<BudgetItem> kBudgetFields[] = {
    {"pattern",
     [](const Cursor& v, BudgetItem& item) -> Status {
       std::string text;
       if (auto st = v.ReadString(text); !st) return st;
       if (!IsNamespacePattern(text)) {
         return v.FailExpected(
             "a namespace name, '*' matching any run of characters, such as \"team-*\"");
       }
       item.budget.pattern = std::move(text);
       item.hasPattern = true;
       return {};
     }},
    {"period",
     [](const Cursor& v, BudgetItem& item) -> Status {
       std::string text;
       if (auto st = v.ReadString(text); !st) return st;
       Result<usage::PeriodSpec> spec = usage::ParsePeriodSpec(text);
       if (!spec) return v.Fail(spec.error().message + ", got " + v.Describe());
       item.budget.period = *spec;
       item.hasPeriod = true;
       return {};
     }},
    {"gpuHours", ReadGpuHours},
    {"warnAt",
     [](const Cursor& v, BudgetItem& item) -> Status {
       std::optional<int64_t> percent = v.IsQuoted() ? std::nullopt : v.PlainInteger();
       if (!percent || *percent < 0 || *percent > 100) {
         return v.FailExpected("a percentage from 0 (no warning) to 100");
       }
       item.budget.warnAtPercent = static_cast<int>(*percent);
       return {};
     }},
};

// A rolling window must fit in the days the book keeps: whole months but the current one, at
// 28 days each.
Status CheckWindow(const Cursor& item, const Budget& b, int historyMonths) {
  auto kept = std::chrono::days(28) * (historyMonths - 1);
  if (b.period.kind != usage::PeriodKind::kRolling || b.period.window <= kept) return {};
  return item.Fail(
      "period " + usage::FormatPeriodSpec(b.period) +
      " is longer than the history kept (historyMonths: " + std::to_string(historyMonths) +
      " keeps " + std::to_string(kept.count()) + " days for certain)");
}

Status ReadBudgets(const Cursor& value, UsageSection& s) {
  std::vector<Budget> budgets;
  auto st = VisitList(value, [&](const Cursor& item) -> Status {
    BudgetItem read{.config = s.config};
    if (auto st = ReadFields(item, kBudgetFields, read); !st) return st;
    if (!read.hasPattern || !read.hasPeriod || !read.hasHours) {
      return item.Fail("needs a pattern, a period and gpuHours");
    }
    for (size_t i = 0; i < budgets.size(); ++i) {
      if (budgets[i].pattern == read.budget.pattern) {
        return item.Fail("pattern " + JsonQuote(read.budget.pattern) + " is already listed at " +
                         value.path() + "[" + std::to_string(i) + "]");
      }
    }
    budgets.push_back(std::move(read.budget));
    return {};
  });
  if (!st) return st;
  s.usage.budgets = std::move(budgets);
  return {};
}

constexpr Field<UsageSection> kUsageFields[] = {
    {"timeZone", ReadTimeZone},
    {"historyMonths", ReadHistory},
    {"maxRecordBytes", ReadRecordBytes},
    // Read last by ReadUsage, once historyMonths is known.
    {"budgets", [](const Cursor&, UsageSection&) { return Status{}; }},
};

}  // namespace

Status ReadUsage(const Cursor& value, Config& out) {
  UsageSection section{.config = out};
  if (auto st = ReadFields(value, kUsageFields, section); !st) return st;
  for (auto it = value.node().begin(); it != value.node().end(); ++it) {
    if (it->first.Scalar() != "budgets") continue;
    Cursor budgets = value.Entry("budgets", it->first, it->second);
    if (auto st = ReadBudgets(budgets, section); !st) return st;
    for (size_t i = 0; i < section.usage.budgets.size(); ++i) {
      Cursor item = budgets.Item(i, it->second[i]);
      auto st = CheckWindow(item, section.usage.budgets[i], section.usage.historyMonths);
      if (!st) return st;
    }
  }
  out.usage = std::move(section.usage);
  return {};
}

}  // namespace gpugate::config
