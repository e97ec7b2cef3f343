// Budget periods: a calendar month, an ISO week (from Monday 00:00), both in the configured time
// zone's local time, or a rolling window of any length from a second to 366 days.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"
#include "common/time_zone.h"
#include "usage/span.h"

namespace gpugate::usage {

enum class PeriodKind { kMonth, kWeek, kRolling };

struct PeriodSpec {
  PeriodKind kind = PeriodKind::kMonth;
  std::chrono::seconds window{0};  // kRolling only

  bool operator==(const PeriodSpec&) const = default;
};

// The longest rolling window: a leap year.
inline constexpr std::chrono::hours kMaxRollingWindow{8784};

// "month", "week" or "rolling:<Go duration>" ("rolling:10m", "rolling:720h"), the window a whole
// number of seconds from 1s to 8784h. The error's message is the reason alone.
Result<PeriodSpec> ParsePeriodSpec(std::string_view text);

// The spelling ParsePeriodSpec reads: "month", "week", "rolling:10m".
std::string FormatPeriodSpec(const PeriodSpec& spec);

// The period in force at `now`.
struct Period {
  Span span;  // [start, end): a calendar period's bounds, or [now - window, now)
  // When the next calendar period begins (span.to); a rolling window has none: it frees
  // continuously as usage ages out of it.
  std::optional<sys_seconds> renews;
};

Period PeriodAt(const PeriodSpec& spec, const TimeZone& zone, sys_seconds now);

// For messages: "in month 2026-11 (Europe/Berlin)", "in the week of 2026-11-23 (UTC)",
// "in the last 10m".
std::string DescribePeriod(const PeriodSpec& spec, const Period& period, const TimeZone& zone);

}  // namespace gpugate::usage
