#include "common/time_zone.h"

#include <gtest/gtest.h>

#include <string>

#include "common/files.h"

namespace gpugate {
namespace {

using namespace std::chrono;

sys_seconds Utc(int y, unsigned mo, unsigned d, int h = 0, int mi = 0, int s = 0) {
  return sys_days{year{y} / mo / d} + hours(h) + minutes(mi) + seconds(s);
}

local_seconds Local(int y, unsigned mo, unsigned d, int h = 0, int mi = 0) {
  return local_days{year{y} / mo / d} + hours(h) + minutes(mi);
}

TimeZone MustLoad(std::string_view name) {
  Result<TimeZone> zone = TimeZone::Load(name);
  EXPECT_TRUE(zone.has_value()) << (zone ? "" : zone.error().message);
  return zone ? *zone : TimeZone::Utc();
}

// Civil time at instants on both sides of each change, as zdump prints them (the expected
// values were read from `zdump -v`, an independent reader of the same files).
TEST(TimeZoneTest, CivilTimeAroundChanges) {
  struct Case {
    const char* zone;
    sys_seconds at;
    const char* local;
  } cases[] = {
      {"UTC", Utc(2026, 11, 27, 20, 30), "2026-11-27T20:30:00+00:00"},
      {"Europe/Berlin", Utc(2026, 3, 29, 0, 59, 59), "2026-03-29T01:59:59+01:00"},
      {"Europe/Berlin", Utc(2026, 3, 29, 1), "2026-03-29T03:00:00+02:00"},
      {"Europe/Berlin", Utc(2026, 10, 25, 0, 59, 59), "2026-10-25T02:59:59+02:00"},
      {"Europe/Berlin", Utc(2026, 10, 25, 1), "2026-10-25T02:00:00+01:00"},
      {"America/New_York", Utc(2026, 3, 8, 6, 59, 59), "2026-03-08T01:59:59-05:00"},
      {"America/New_York", Utc(2026, 3, 8, 7), "2026-03-08T03:00:00-04:00"},
      {"America/New_York", Utc(2026, 11, 1, 5, 59, 59), "2026-11-01T01:59:59-04:00"},
      {"America/New_York", Utc(2026, 11, 1, 6), "2026-11-01T01:00:00-05:00"},
      {"Australia/Lord_Howe", Utc(2026, 4, 4, 14, 59, 59), "2026-04-05T01:59:59+11:00"},
      {"Australia/Lord_Howe", Utc(2026, 4, 4, 15), "2026-04-05T01:30:00+10:30"},
      {"Australia/Lord_Howe", Utc(2026, 10, 3, 15, 29, 59), "2026-10-04T01:59:59+10:30"},
      {"Australia/Lord_Howe", Utc(2026, 10, 3, 15, 30), "2026-10-04T02:30:00+11:00"},
      {"Asia/Kolkata", Utc(2026, 1, 1), "2026-01-01T05:30:00+05:30"},
      {"Asia/Kolkata", Utc(2026, 7, 1, 18, 30), "2026-07-02T00:00:00+05:30"},
      // Past 2037: from the files' POSIX TZ footer rule.
      {"Europe/Berlin", Utc(2040, 3, 25, 0, 59, 59), "2040-03-25T01:59:59+01:00"},
      {"Europe/Berlin", Utc(2040, 3, 25, 1), "2040-03-25T03:00:00+02:00"},
      {"Europe/Berlin", Utc(2040, 10, 28, 1), "2040-10-28T02:00:00+01:00"},
      {"America/New_York", Utc(2100, 3, 14, 7), "2100-03-14T03:00:00-04:00"},
      {"America/New_York", Utc(2100, 3, 14, 6, 59, 59), "2100-03-14T01:59:59-05:00"},
  };
  for (const Case& c : cases) {
    TimeZone zone = MustLoad(c.zone);
    EXPECT_EQ(zone.Rfc3339(c.at), c.local) << c.zone;
  }
}

// Local times back to instants: a time that happens twice maps to the earlier instant, one that
// never happens to the instant the clocks jump.
TEST(TimeZoneTest, FromLocalAcrossGapsAndOverlaps) {
  struct Case {
    const char* zone;
    local_seconds local;
    sys_seconds want;
  } cases[] = {
      {"UTC", Local(2026, 11, 1), Utc(2026, 11, 1)},
      {"Europe/Berlin", Local(2026, 11, 1), Utc(2026, 10, 31, 23)},
      {"Europe/Berlin", Local(2026, 3, 29, 2, 30), Utc(2026, 3, 29, 1)},        // gap
      {"Europe/Berlin", Local(2026, 3, 29, 3), Utc(2026, 3, 29, 1)},            // just after it
      {"Europe/Berlin", Local(2026, 10, 25, 2, 30), Utc(2026, 10, 25, 0, 30)},  // twice
      {"Europe/Berlin", Local(2026, 10, 25, 3), Utc(2026, 10, 25, 2)},
      {"America/New_York", Local(2026, 3, 8, 2, 30), Utc(2026, 3, 8, 7)},
      {"America/New_York", Local(2026, 11, 1, 1, 30), Utc(2026, 11, 1, 5, 30)},
      {"Australia/Lord_Howe", Local(2026, 10, 4, 2, 15), Utc(2026, 10, 3, 15, 30)},
      {"Australia/Lord_Howe", Local(2026, 4, 5, 1, 45), Utc(2026, 4, 4, 14, 45)},
      {"Asia/Kolkata", Local(2026, 7, 2), Utc(2026, 7, 1, 18, 30)},
      // Chile moves its clocks at midnight: 2026-09-06 begins at 01:00.
      {"America/Santiago", Local(2026, 9, 6), Utc(2026, 9, 6, 4)},
      {"Europe/Berlin", Local(2040, 3, 25, 2, 30), Utc(2040, 3, 25, 1)},
  };
  for (const Case& c : cases) {
    TimeZone zone = MustLoad(c.zone);
    EXPECT_EQ(zone.FromLocal(c.local), c.want)
        << c.zone << " " << zone.Rfc3339(zone.FromLocal(c.local));
  }
}

// Days are 24 h but where the clocks change, and consecutive days meet exactly.
TEST(TimeZoneTest, DayLengths) {
  struct Case {
    const char* zone;
    local_days day;
    minutes length;
  } cases[] = {
      {"UTC", local_days{2026y / 3 / 29}, 24h},
      {"Europe/Berlin", local_days{2026y / 3 / 29}, 23h},
      {"Europe/Berlin", local_days{2026y / 10 / 25}, 25h},
      {"Europe/Berlin", local_days{2026y / 10 / 26}, 24h},
      {"America/New_York", local_days{2026y / 3 / 8}, 23h},
      {"America/New_York", local_days{2026y / 11 / 1}, 25h},
      {"Australia/Lord_Howe", local_days{2026y / 10 / 4}, 23h + 30min},
      {"Australia/Lord_Howe", local_days{2026y / 4 / 5}, 24h + 30min},
      {"Asia/Kolkata", local_days{2026y / 3 / 29}, 24h},
      {"America/Santiago", local_days{2026y / 9 / 6}, 23h},
      {"Europe/Berlin", local_days{2040y / 10 / 28}, 25h},
  };
  for (const Case& c : cases) {
    TimeZone zone = MustLoad(c.zone);
    EXPECT_EQ(zone.StartOf(c.day + days(1)) - zone.StartOf(c.day), c.length) << c.zone;
    EXPECT_EQ(zone.DayOf(zone.StartOf(c.day)), c.day) << c.zone;
    EXPECT_EQ(zone.DayOf(zone.StartOf(c.day + days(1)) - seconds(1)), c.day) << c.zone;
  }
}

TEST(TimeZoneTest, RefusesBadNamesAndFiles) {
  Result<std::string> berlin = ReadFile("/usr/share/zoneinfo/Europe/Berlin");
  ASSERT_TRUE(berlin.has_value());
  struct Case {
    const char* what;
    Result<TimeZone> zone;
    const char* error;
  } cases[] = {
      {"missing", TimeZone::Load("Mars/Olympus_Mons"),
       "time zone \"Mars/Olympus_Mons\": cannot read /usr/share/zoneinfo/Mars/Olympus_Mons"},
      {"escaping", TimeZone::Load("../../etc/passwd"),
       "time zone \"../../etc/passwd\": not a zone name such as \"Europe/Berlin\""},
      {"absolute", TimeZone::Load("/etc/localtime"),
       "time zone \"/etc/localtime\": not a zone name such as \"Europe/Berlin\""},
      {"empty", TimeZone::Load(""), "time zone \"\": not a zone name such as \"Europe/Berlin\""},
      {"not TZif", TimeZone::FromTzif("x", "hello, world"), "time zone \"x\": not a TZif file"},
      {"header only", TimeZone::FromTzif("x", berlin->substr(0, 44)),
       "time zone \"x\": truncated (no version 2 header)"},
      {"cut in the data", TimeZone::FromTzif("x", berlin->substr(0, berlin->size() / 2)),
       "time zone \"x\": truncated"},
      {"no footer", TimeZone::FromTzif("x", berlin->substr(0, berlin->size() - 5)),
       "time zone \"x\": truncated footer"},
  };
  for (const Case& c : cases) {
    ASSERT_FALSE(c.zone.has_value()) << c.what;
    EXPECT_TRUE(c.zone.error().message.starts_with(c.error))
        << c.what << ": " << c.zone.error().message;
  }
}

// Every cut of a real file is refused (never read past its end), and flipped bytes in the data
// give an error or a zone, never a crash.
TEST(TimeZoneTest, EveryTruncationIsRefused) {
  for (const char* name : {"Europe/Berlin", "Australia/Lord_Howe", "Asia/Kolkata"}) {
    Result<std::string> bytes = ReadFile(std::string("/usr/share/zoneinfo/") + name);
    ASSERT_TRUE(bytes.has_value());
    for (size_t n = 0; n < bytes->size(); ++n) {
      EXPECT_FALSE(TimeZone::FromTzif(name, bytes->substr(0, n)).has_value()) << name << " " << n;
    }
    for (size_t i = 0; i < bytes->size(); i += 7) {
      std::string flipped = *bytes;
      flipped[i] = static_cast<char>(flipped[i] ^ 0x5a);
      Result<TimeZone> zone = TimeZone::FromTzif(name, flipped);
      if (zone) zone->OffsetAt(sys_days{2026y / 11 / 27});
    }
  }
}

// An offset more than a day from UTC (RFC 8536 allows -89999 to 93599 seconds) is refused.
TEST(TimeZoneTest, OffsetsBeyondADayAreRefused) {
  Result<std::string> bytes = ReadFile("/usr/share/zoneinfo/Asia/Kolkata");
  ASSERT_TRUE(bytes.has_value());
  auto count = [&](size_t at) {
    uint32_t v = 0;
    for (size_t i = 0; i < 4; ++i) v = (v << 8) | static_cast<unsigned char>((*bytes)[at + i]);
    return size_t{v};
  };
  // Past the version 1 block (its counts at 20..43), the version 2 header, then the
  // transitions (8 + 1 bytes each) come the local time types, each starting with its offset.
  size_t v2 =
      44 + count(32) * 5 + count(36) * 6 + count(40) + count(28) * 8 + count(24) + count(20);
  size_t firstType = v2 + 44 + count(v2 + 32) * 9;
  std::string broken = *bytes;
  broken.replace(firstType, 4, "\x7f\xff\xff\xff");
  Result<TimeZone> zone = TimeZone::FromTzif("Asia/Kolkata", broken);
  ASSERT_FALSE(zone.has_value());
  EXPECT_EQ(zone.error().message, "time zone \"Asia/Kolkata\": a UTC offset out of range");
  EXPECT_TRUE(TimeZone::FromTzif("Asia/Kolkata", *bytes).has_value());
}

TEST(TimeZoneTest, VersionOneFilesAreRefused) {
  Result<std::string> berlin = ReadFile("/usr/share/zoneinfo/Europe/Berlin");
  ASSERT_TRUE(berlin.has_value());
  std::string v1 = *berlin;
  v1[4] = '\0';
  Result<TimeZone> zone = TimeZone::FromTzif("old", v1);
  ASSERT_FALSE(zone.has_value());
  EXPECT_EQ(zone.error().message,
            "time zone \"old\": TZif version 1 has no 64-bit times; version 2 or later needed");
}

TEST(TimeZoneTest, UtcIsBuiltIn) {
  Result<TimeZone> utc = TimeZone::Load("UTC", "/nonexistent");
  ASSERT_TRUE(utc.has_value());
  EXPECT_EQ(utc->name(), "UTC");
  EXPECT_EQ(utc->OffsetAt(Utc(2026, 7, 1)), seconds(0));
  EXPECT_EQ(utc->StartOf(local_days{2026y / 7 / 1}), Utc(2026, 7, 1));
}

}  // namespace
}  // namespace gpugate
