#include "usage/period.h"

#include "common/go_duration.h"
#include "usage/civil_date.h"

namespace gpugate::usage {

using namespace std::chrono;

Result<PeriodSpec> ParsePeriodSpec(std::string_view text) {
  if (text == "month") return PeriodSpec{.kind = PeriodKind::kMonth};
  if (text == "week") return PeriodSpec{.kind = PeriodKind::kWeek};
  constexpr std::string_view kRolling = "rolling:";
  if (!text.starts_with(kRolling)) {
    return Fail("must be month, week or rolling:<duration> such as rolling:720h");
  }
  Result<microseconds> window = ParseGoDuration(text.substr(kRolling.size()), kMaxRollingWindow);
  if (!window) return Fail("rolling window: " + window.error().message);
  if (*window % seconds(1) != microseconds(0) || *window < seconds(1)) {
    return Fail("rolling window: must be a whole number of seconds, at least 1s");
  }
  return PeriodSpec{.kind = PeriodKind::kRolling, .window = duration_cast<seconds>(*window)};
}

std::string FormatPeriodSpec(const PeriodSpec& spec) {
  switch (spec.kind) {
    case PeriodKind::kMonth:
      return "month";
    case PeriodKind::kWeek:
      return "week";
    case PeriodKind::kRolling:
      break;
  }
  return "rolling:" + FormatGoDuration(duration_cast<milliseconds>(spec.window));
}

Period PeriodAt(const PeriodSpec& spec, const TimeZone& zone, sys_seconds now) {
  local_days today = zone.DayOf(now);
  switch (spec.kind) {
    case PeriodKind::kMonth: {
      year_month_day ymd{today};
      year_month month{ymd.year(), ymd.month()};
      sys_seconds end = zone.StartOf(local_days{(month + months(1)) / 1});
      return {{zone.StartOf(local_days{month / 1}), end}, end};
    }
    case PeriodKind::kWeek: {
      local_days monday = today - (weekday{today} - Monday);
      sys_seconds end = zone.StartOf(monday + days(7));
      return {{zone.StartOf(monday), end}, end};
    }
    case PeriodKind::kRolling:
      break;
  }
  return {{now - spec.window, now}, std::nullopt};
}

std::string DescribePeriod(const PeriodSpec& spec, const Period& period, const TimeZone& zone) {
  std::string start = FormatDate(zone.DayOf(period.span.from));
  switch (spec.kind) {
    case PeriodKind::kMonth:
      return "in month " + start.substr(0, 7) + " (" + zone.name() + ")";
    case PeriodKind::kWeek:
      return "in the week of " + start + " (" + zone.name() + ")";
    case PeriodKind::kRolling:
      break;
  }
  return "in the last " + FormatGoDuration(duration_cast<milliseconds>(spec.window));
}

}  // namespace gpugate::usage
