// The one reading of a report's parameters, shared by GET /usage and `gpugate usage`, so both
// accept the same spellings and refuse with the same words.
#pragma once

#include <optional>
#include <string>

#include "common/time_zone.h"
#include "usage/report.h"

namespace gpugate::usage {

struct ReportParams {
  std::optional<std::string> period;  // "2026-11"
  std::optional<std::string> since;   // "2026-11-03"
  std::optional<std::string> until;   // "2026-11-09"
  std::optional<std::string> by;      // namespace|model|resource|day; default namespace
  // Namespaces, comma-separated ("team-a,team-b"); default every one.
  std::optional<std::string> ns;
};

// The query `params` ask for, in this order:
//   1. period and since/until together are an error; since without until, or until without
//      since, too;
//   2. period: that month; since/until: those days; neither: the month of `now` in `zone`;
//   3. by: ParseGroupBy's names;
//   4. ns: the names between its commas, empty ones left out, each once, in order.
// Errors name the parameter: "period: ...", "by: ...".
Result<ReportQuery> QueryFrom(const ReportParams& params, const TimeZone& zone, sys_seconds now);

}  // namespace gpugate::usage
