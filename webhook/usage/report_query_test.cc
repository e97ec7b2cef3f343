#include "usage/report_query.h"

#include <gtest/gtest.h>

#include "usage/civil_date.h"
#include "usage/testing.h"

namespace gpugate::usage {
namespace {

using testing::Utc;

// "2026-11-01..2026-11-30 by namespace [team-a]" or "error: ...".
std::string Render(const Result<ReportQuery>& q) {
  if (!q) return "error: " + q.error().message;
  std::string out =
      FormatDate(q->first) + ".." + FormatDate(q->last) + " by " + std::string(GroupByName(q->by));
  for (const std::string& ns : q->namespaces) out += " [" + ns + "]";
  return out;
}

TEST(ReportQuery, ParametersAsGetUsageAndTheCliReadThem) {
  const struct {
    ReportParams params;
    std::string want;
  } kCases[] = {
      {{}, "2026-11-01..2026-11-30 by namespace"},  // the month of now
      {{.period = "2026-02"}, "2026-02-01..2026-02-28 by namespace"},
      {{.since = "2026-11-03", .until = "2026-11-09", .by = "day", .ns = "team-a"},
       "2026-11-03..2026-11-09 by day [team-a]"},
      {{.by = "model"}, "2026-11-01..2026-11-30 by model"},
      {{.ns = "team-b,team-a,,team-b"}, "2026-11-01..2026-11-30 by namespace [team-b] [team-a]"},
      {{.ns = ""}, "2026-11-01..2026-11-30 by namespace"},
      {{.period = "2026-11", .since = "2026-11-03", .until = "2026-11-09"},
       "error: period: give a month or since and until, not both"},
      {{.since = "2026-11-03"}, "error: until: missing (since needs it)"},
      {{.until = "2026-11-03"}, "error: since: missing (until needs it)"},
  };
  for (const auto& c : kCases) {
    EXPECT_EQ(Render(QueryFrom(c.params, TimeZone::Utc(), Utc(2026, 11, 27, 20))), c.want);
  }
  // The wrapped parsers' own reasons follow the parameter's name.
  EXPECT_TRUE(Render(QueryFrom({.by = "colour"}, TimeZone::Utc(), Utc(2026, 11, 27)))
                  .starts_with("error: by: "));
  EXPECT_TRUE(Render(QueryFrom({.period = "2026-13"}, TimeZone::Utc(), Utc(2026, 11, 27)))
                  .starts_with("error: period: "));
}

}  // namespace
}  // namespace gpugate::usage
