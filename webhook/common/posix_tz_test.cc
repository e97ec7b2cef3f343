#include "common/posix_tz.h"

#include <gtest/gtest.h>

#include <string>

namespace gpugate {
namespace {

using namespace std::chrono;

sys_seconds Utc(int y, unsigned mo, unsigned d, int h = 0, int mi = 0) {
  return sys_days{year{y} / mo / d} + hours(h) + minutes(mi);
}

TEST(PosixTzRuleTest, OffsetsFromRules) {
  struct Case {
    const char* rule;
    sys_seconds at;
    seconds offset;
  } cases[] = {
      {"IST-5:30", Utc(2050, 6, 1), 5h + 30min},
      {"<+13>-13", Utc(2050, 6, 1), 13h},
      {"CET-1CEST,M3.5.0,M10.5.0/3", Utc(2050, 3, 27, 0, 59), 1h},
      {"CET-1CEST,M3.5.0,M10.5.0/3", Utc(2050, 3, 27, 1), 2h},
      {"CET-1CEST,M3.5.0,M10.5.0/3", Utc(2050, 10, 30, 0, 59), 2h},
      {"CET-1CEST,M3.5.0,M10.5.0/3", Utc(2050, 10, 30, 1), 1h},
      {"EST5EDT,M3.2.0,M11.1.0", Utc(2050, 3, 13, 7), -4h},
      {"EST5EDT,M3.2.0,M11.1.0", Utc(2050, 1, 1), -5h},
      // Southern hemisphere: DST spans the new year.
      {"<+1030>-10:30<+11>-11,M10.1.0,M4.1.0", Utc(2050, 1, 1), 11h},
      {"<+1030>-10:30<+11>-11,M10.1.0,M4.1.0", Utc(2050, 6, 1), 10h + 30min},
      // Chile: changes at 24:00, the end of a Saturday.
      {"<-04>4<-03>,M9.1.6/24,M4.1.6/24", Utc(2050, 7, 1), -4h},
      {"<-04>4<-03>,M9.1.6/24,M4.1.6/24", Utc(2050, 12, 1), -3h},
      // Julian day forms: J60 is March 1 every year, 59 is March 1 in leap years only.
      {"AAA-1BBB,J60,J300", Utc(2048, 2, 29, 12), 1h},
      {"AAA-1BBB,J60,J300", Utc(2048, 3, 1, 12), 2h},
      {"AAA-1BBB,59,300", Utc(2048, 2, 29, 12), 2h},
  };
  for (const Case& c : cases) {
    Result<PosixTzRule> rule = PosixTzRule::Parse(c.rule);
    ASSERT_TRUE(rule.has_value()) << c.rule << ": " << rule.error().message;
    EXPECT_EQ(rule->OffsetAt(c.at), c.offset) << c.rule;
  }
}

TEST(PosixTzRuleTest, RefusesMalformedRules) {
  struct Case {
    const char* rule;
    const char* why;
  } cases[] = {
      {"", "expected a zone name"},
      {"C-1", "expected a zone name"},
      {"CET", "expected a UTC offset after the name"},
      {"CET-1CEST", "expected ,start[/time],end[/time]"},
      {"CET-1CEST,M3.5.0", "expected ,start[/time],end[/time]"},
      {"CET-1CEST,M13.5.0,M10.5.0", "expected ,start[/time],end[/time]"},
      {"CET-1CEST,M3.6.0,M10.5.0", "expected ,start[/time],end[/time]"},
      {"CET-1CEST,J0,J100", "expected ,start[/time],end[/time]"},
      {"CET-1CEST,M3.5.0,M10.5.0/x", "expected ,start[/time],end[/time]"},
      {"CET-1CEST,M3.5.0,M10.5.0 ", "unexpected text at the end"},
      {"<+1030-10:30", "expected a zone name"},
  };
  for (const Case& c : cases) {
    Result<PosixTzRule> rule = PosixTzRule::Parse(c.rule);
    ASSERT_FALSE(rule.has_value()) << c.rule;
    EXPECT_EQ(rule.error().message, "TZ rule \"" + std::string(c.rule) + "\": " + c.why);
  }
}

}  // namespace
}  // namespace gpugate
