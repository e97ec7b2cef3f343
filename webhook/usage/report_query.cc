#include "usage/report_query.h"

#include <algorithm>

#include "usage/civil_date.h"

namespace gpugate::usage {

Result<ReportQuery> QueryFrom(const ReportParams& params, const TimeZone& zone, sys_seconds now) {
  if (params.period && (params.since || params.until)) {
    return Fail("period: give a month or since and until, not both");
  }
  if (params.since.has_value() != params.until.has_value()) {
    return Fail(params.since ? "until: missing (since needs it)"
                             : "since: missing (until needs it)");
  }
  Result<ReportQuery> query = Fail("");
  if (params.since) {
    query = QueryForDates(*params.since, *params.until);
    if (!query) return Fail("since/until: " + query.error().message);
  } else {
    const std::string month =
        params.period ? *params.period : FormatDate(zone.DayOf(now)).substr(0, 7);
    query = QueryForMonth(month);
    if (!query) return Fail("period: " + query.error().message);
  }
  if (params.by) {
    Result<GroupBy> by = ParseGroupBy(*params.by);
    if (!by) return Fail("by: " + by.error().message);
    query->by = *by;
  }
  if (params.ns) {
    std::string_view rest = *params.ns;
    while (!rest.empty()) {
      const size_t comma = rest.find(',');
      const std::string name(rest.substr(0, comma));
      rest = comma == std::string_view::npos ? "" : rest.substr(comma + 1);
      auto& names = query->namespaces;
      if (!name.empty() && std::find(names.begin(), names.end(), name) == names.end()) {
        names.push_back(name);
      }
    }
  }
  return query;
}

}  // namespace gpugate::usage
