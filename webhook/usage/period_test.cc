#include "usage/period.h"

#include <gtest/gtest.h>

#include "usage/testing.h"

namespace gpugate::usage {
namespace {

using namespace testing;

TEST(PeriodSpecTest, ParsesAndRefuses) {
  struct Case {
    const char* text;
    const char* error;  // "" when valid; then FormatPeriodSpec gives the text back
  } cases[] = {
      {"month", ""},
      {"week", ""},
      {"rolling:10m", ""},
      {"rolling:720h", ""},
      {"rolling:1s", ""},
      {"rolling:8784h", ""},
      {"Month", "must be month, week or rolling:<duration> such as rolling:720h"},
      {"day", "must be month, week or rolling:<duration> such as rolling:720h"},
      {"rolling:", "rolling window: empty"},
      {"rolling:0s", "rolling window: must be a whole number of seconds, at least 1s"},
      {"rolling:1500ms", "rolling window: must be a whole number of seconds, at least 1s"},
      {"rolling:8785h", "rolling window: longer than 8784h"},
      {"rolling:10", "rolling window: missing or unknown unit (ns, us, ms, s, m, h)"},
  };
  for (const Case& c : cases) {
    Result<PeriodSpec> spec = ParsePeriodSpec(c.text);
    if (*c.error == '\0') {
      ASSERT_TRUE(spec.has_value()) << c.text << ": " << spec.error().message;
      EXPECT_EQ(FormatPeriodSpec(*spec), c.text);
    } else {
      ASSERT_FALSE(spec.has_value()) << c.text;
      EXPECT_EQ(spec.error().message, c.error) << c.text;
    }
  }
}

// Calendar periods in local time, across DST changes and year ends; rolling windows end now.
TEST(PeriodTest, PeriodAt) {
  struct Case {
    const char* spec;
    const char* zone;
    sys_seconds now;
    const char* from;
    const char* to;
    const char* described;
  } cases[] = {
      {"month", "UTC", Utc(2026, 11, 27, 20, 30), "2026-11-01T00:00:00+00:00",
       "2026-12-01T00:00:00+00:00", "in month 2026-11 (UTC)"},
      // 23:30 UTC on Nov 30 is already December in Berlin.
      {"month", "Europe/Berlin", Utc(2026, 11, 30, 23, 30), "2026-12-01T00:00:00+01:00",
       "2027-01-01T00:00:00+01:00", "in month 2026-12 (Europe/Berlin)"},
      // March: starts in winter time, ends in summer time (a 743-hour month).
      {"month", "Europe/Berlin", Utc(2026, 3, 15), "2026-03-01T00:00:00+01:00",
       "2026-04-01T00:00:00+02:00", "in month 2026-03 (Europe/Berlin)"},
      {"month", "America/New_York", Utc(2026, 11, 1, 3), "2026-10-01T00:00:00-04:00",
       "2026-11-01T00:00:00-04:00", "in month 2026-10 (America/New_York)"},
      {"month", "Asia/Kolkata", Utc(2026, 12, 31, 18, 30), "2027-01-01T00:00:00+05:30",
       "2027-02-01T00:00:00+05:30", "in month 2027-01 (Asia/Kolkata)"},
      // ISO weeks from Monday; 2026-11-27 is a Friday, 2027-01-01 too.
      {"week", "UTC", Utc(2026, 11, 27, 20, 30), "2026-11-23T00:00:00+00:00",
       "2026-11-30T00:00:00+00:00", "in the week of 2026-11-23 (UTC)"},
      {"week", "Europe/Berlin", Utc(2027, 1, 1), "2026-12-28T00:00:00+01:00",
       "2027-01-04T00:00:00+01:00", "in the week of 2026-12-28 (Europe/Berlin)"},
      {"week", "Australia/Lord_Howe", Utc(2026, 10, 5), "2026-10-05T00:00:00+11:00",
       "2026-10-12T00:00:00+11:00", "in the week of 2026-10-05 (Australia/Lord_Howe)"},
      // A Monday at 00:00 exactly belongs to the new week.
      {"week", "UTC", Utc(2026, 11, 30), "2026-11-30T00:00:00+00:00", "2026-12-07T00:00:00+00:00",
       "in the week of 2026-11-30 (UTC)"},
      {"rolling:10m", "Europe/Berlin", Utc(2026, 11, 27, 20, 30), "2026-11-27T21:20:00+01:00",
       "2026-11-27T21:30:00+01:00", "in the last 10m"},
      {"rolling:720h", "UTC", Utc(2026, 11, 27, 20, 30), "2026-10-28T20:30:00+00:00",
       "2026-11-27T20:30:00+00:00", "in the last 720h"},
  };
  for (const Case& c : cases) {
    TimeZone zone = Zone(c.zone);
    Result<PeriodSpec> spec = ParsePeriodSpec(c.spec);
    ASSERT_TRUE(spec.has_value());
    Period p = PeriodAt(*spec, zone, c.now);
    EXPECT_EQ(zone.Rfc3339(p.span.from), c.from) << c.spec << " " << c.zone;
    EXPECT_EQ(zone.Rfc3339(p.span.to), c.to) << c.spec << " " << c.zone;
    EXPECT_EQ(DescribePeriod(*spec, p, zone), c.described);
    if (spec->kind == PeriodKind::kRolling) {
      EXPECT_FALSE(p.renews.has_value());
    } else {
      EXPECT_EQ(p.renews, p.span.to);
      EXPECT_LE(p.span.from, c.now);
      EXPECT_LT(c.now, p.span.to);
    }
  }
}

}  // namespace
}  // namespace gpugate::usage
