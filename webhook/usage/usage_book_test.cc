#include "usage/usage_book.h"

#include <gtest/gtest.h>

#include "usage/book_codec.h"
#include "usage/testing.h"

namespace gpugate::usage {
namespace {

using namespace testing;

// A pod's GPU-time lands on the local days it ran, split exactly at local midnights, whatever
// the days' lengths.
TEST(UsageBookTest, AccrualSplitsAcrossLocalDays) {
  struct Case {
    const char* zone;
    int from[5];  // local y, m, d, h, min
    int to[5];
    int64_t milli;
    const char* want;
  } cases[] = {
      {"UTC",
       {2026, 11, 2, 9, 0},
       {2026, 11, 2, 17, 0},
       1000,
       "team-a/nvidia.com/gpu 2026-11-02=8h"},
      {"UTC",
       {2026, 11, 2, 22, 0},
       {2026, 11, 3, 2, 0},
       2000,
       "team-a/nvidia.com/gpu 2026-11-02=4h 2026-11-03=4h"},
      // Berlin's 23-hour day: a pod running through it accrues 23 GPU-hours for it.
      {"Europe/Berlin",
       {2026, 3, 28, 22, 0},
       {2026, 3, 30, 1, 0},
       1000,
       "team-a/nvidia.com/gpu 2026-03-28=2h 2026-03-29=23h 2026-03-30=1h"},
      {"Europe/Berlin",
       {2026, 10, 25, 0, 0},
       {2026, 10, 26, 0, 0},
       1000,
       "team-a/nvidia.com/gpu 2026-10-25=25h"},
      {"America/New_York",
       {2026, 10, 31, 23, 0},
       {2026, 11, 1, 3, 0},
       1000,
       "team-a/nvidia.com/gpu 2026-10-31=1h 2026-11-01=4h"},
      {"Australia/Lord_Howe",
       {2026, 10, 4, 0, 0},
       {2026, 10, 5, 0, 0},
       2000,
       "team-a/nvidia.com/gpu 2026-10-04=47h"},
      {"Asia/Kolkata",
       {2026, 11, 30, 23, 30},
       {2026, 12, 1, 0, 30},
       1000,
       "team-a/nvidia.com/gpu 2026-11-30=0.5h 2026-12-01=0.5h"},
      // A share of a card: 0.25 of a GPU for 2 hours.
      {"UTC",
       {2026, 11, 2, 0, 0},
       {2026, 11, 2, 2, 0},
       250,
       "team-a/nvidia.com/gpu 2026-11-02=0.5h"},
      // Never ran: nothing.
      {"UTC", {2026, 11, 2, 9, 0}, {2026, 11, 2, 9, 0}, 1000, ""},
  };
  for (const Case& c : cases) {
    TimeZone zone = Zone(c.zone);
    UsageBook book(zone, {});
    Span held = {At(zone, c.from[0], c.from[1], c.from[2], c.from[3], c.from[4]),
                 At(zone, c.to[0], c.to[1], c.to[2], c.to[3], c.to[4])};
    Accrual a[] = {{Key("team-a"), c.milli, held}};
    ASSERT_TRUE(book.Accrue(a).has_value()) << c.zone;
    EXPECT_EQ(Render(book), c.want) << c.zone;
  }
}

// Refused accruals leave the book as it was, including a batch whose second item fails.
TEST(UsageBookTest, RefusalsLeaveTheBookUnchanged) {
  UsageBook book(TimeZone::Utc(), {.maxBytes = 400});
  Span day = {Utc(2026, 11, 2), Utc(2026, 11, 3)};
  Accrual first[] = {{Key("team-a"), 1000, day}};
  ASSERT_TRUE(book.Accrue(first).has_value());
  std::string before = EncodeBook(book);
  struct Case {
    std::vector<Accrual> accruals;
    const char* error;
  } cases[] = {
      {{{Key("team-a"), -1, day}},
       "usage of team-a/nvidia.com/gpu not recorded: a negative amount (-1)"},
      {{{Key("team-b"), 1000, day}, {Key("team-a"), 1000, {day.to, day.from}}},
       "usage of team-a/nvidia.com/gpu not recorded: an interval that ends before it starts"},
      {{{Key("team-a"), 1000, {sys_seconds::min(), day.to}}},
       "usage of team-a/nvidia.com/gpu not recorded: an interval outside 1970-2200 or longer than "
       "ten years"},
      {{{Key("team-a"), 1000, {Utc(2001, 1, 1), day.to}}},
       "usage of team-a/nvidia.com/gpu not recorded: an interval outside 1970-2200 or longer than "
       "ten years"},
      {{{Key("team-a"), INT64_MAX / 1000, day}},
       "usage of team-a/nvidia.com/gpu not recorded: more than a million units held"},
      {{{Key("team-b"), 1000, day}, {Key("team-c"), 1000, day}, {Key("team-d"), 1000, day}},
       "usage not recorded: the usage record would grow to 428 bytes, past its limit of 400 bytes"},
  };
  for (const Case& c : cases) {
    Status st = book.Accrue(c.accruals);
    ASSERT_FALSE(st.has_value()) << c.error;
    EXPECT_EQ(st.error().message, c.error);
    EXPECT_EQ(EncodeBook(book), before);
    EXPECT_EQ(book.EncodedSize(), before.size());
  }
  // The size the refusal names is the size the record would have had.
  Result<UsageBook> roomy = DecodeBook(before, TimeZone::Utc(), {.maxBytes = 1 << 20});
  ASSERT_TRUE(roomy.has_value());
  ASSERT_TRUE(roomy->Accrue(cases[5].accruals).has_value());
  EXPECT_EQ(EncodeBook(*roomy).size(), 428u);
}

// A pod running across a month's end counts in each month for its time there.
TEST(UsageBookTest, TotalsSplitAtPeriodBoundaries) {
  TimeZone berlin = Zone("Europe/Berlin");
  UsageBook book(berlin, {});
  Accrual a[] = {{Key("team-a"), 2000, {At(berlin, 2026, 11, 30, 20), At(berlin, 2026, 12, 1, 4)}},
                 {Key("team-b", "gpu-equivalents"),
                  500,
                  {At(berlin, 2026, 11, 1, 0), At(berlin, 2026, 11, 1, 2)}}};
  ASSERT_TRUE(book.Accrue(a).has_value());
  Span november = {At(berlin, 2026, 11, 1), At(berlin, 2026, 12, 1)};
  Span december = {At(berlin, 2026, 12, 1), At(berlin, 2027, 1, 1)};
  auto nov = book.Totals(november);
  auto dec = book.Totals(december);
  EXPECT_EQ(nov[Key("team-a")], 2000 * 4 * 3600);
  EXPECT_EQ(nov[Key("team-b", "gpu-equivalents")], 500 * 2 * 3600);
  EXPECT_EQ(dec[Key("team-a")], 2000 * 4 * 3600);
  EXPECT_FALSE(dec.contains(Key("team-b", "gpu-equivalents")));
}

// History: the current month and the twelve before it; older days go at the next prune and are
// never added again.
TEST(UsageBookTest, HistoryIsBounded) {
  UsageBook book(TimeZone::Utc(), {.historyMonths = 13});
  Accrual a[] = {{Key("team-a"), 1000, {Utc(2025, 10, 31, 23), Utc(2025, 11, 1, 1)}},
                 {Key("team-a"), 1000, {Utc(2026, 11, 2), Utc(2026, 11, 2, 1)}}};
  ASSERT_TRUE(book.Accrue(a).has_value());
  EXPECT_EQ(Render(book), "team-a/nvidia.com/gpu 2025-10-31=1h 2025-11-01=1h 2026-11-02=1h");
  book.Prune(Utc(2026, 11, 27));
  EXPECT_EQ(Render(book), "team-a/nvidia.com/gpu 2025-11-01=1h 2026-11-02=1h");
  ASSERT_TRUE(book.Accrue(a).has_value());
  EXPECT_EQ(Render(book), "team-a/nvidia.com/gpu 2025-11-01=2h 2026-11-02=2h");
  book.Prune(Utc(2027, 12, 1));
  EXPECT_EQ(Render(book), "");
  EXPECT_EQ(EncodeBook(book).size(), book.EncodedSize());
}

// Windows shorter than a day count to the second from the intervals kept whole; once those are
// gone, a span starting earlier counts the local days that begin inside it.
TEST(UsageBookTest, ShortWindowsAreExact) {
  UsageBook book(TimeZone::Utc(), {.exactWindow = minutes(10)});
  sys_seconds now = Utc(2026, 11, 27, 12);
  Accrual a[] = {{Key("team-a"), 1000, {now - minutes(25), now - minutes(15)}},
                 {Key("team-a"), 2000, {now - minutes(12), now - minutes(2)}}};
  ASSERT_TRUE(book.Accrue(a).has_value());
  book.Prune(now);
  EXPECT_EQ(book.exactSince(), now - minutes(10));
  Span window = {now - minutes(10), now};
  EXPECT_EQ(book.Counted(window), window);
  EXPECT_EQ(book.Totals(window)[Key("team-a")], 2000 * 8 * 60);
  // An hour-long window starts before the horizon, so it counts the days that begin inside it:
  // none (a window that long needs exactWindow: 1h).
  Span hour = {now - hours(1), now};
  EXPECT_EQ(book.Counted(hour), (Span{now, now}));
  EXPECT_TRUE(book.Totals(hour).empty());
  Span day = {Utc(2026, 11, 27), now};
  EXPECT_EQ(book.Totals(day)[Key("team-a")], 1000 * 10 * 60 + 2000 * 10 * 60);
  // Intervals older than the window are dropped; the days keep everything.
  EXPECT_EQ(book.keys().at(Key("team-a")).recent.size(), 1u);
  book.Prune(now + hours(1));
  EXPECT_TRUE(book.keys().at(Key("team-a")).recent.empty());
}

// The size the book reports is its encoding's, after every kind of change.
TEST(UsageBookTest, EncodedSizeIsExact) {
  UsageBook book(Zone("Europe/Berlin"), {.exactWindow = minutes(30)});
  EXPECT_EQ(book.EncodedSize(), EncodeBook(book).size());
  for (int d = 1; d <= 20; ++d) {
    Accrual a[] = {
        {Key("team-" + std::to_string(d % 3)),
         1000 * d,
         {Utc(2026, 11, d, 3), Utc(2026, 11, d + 1, 5)}},
        {Key("team-a", "nvidia.com/gpu", "a100"), 7, {Utc(2026, 11, d), Utc(2026, 11, d, 0, 1)}}};
    ASSERT_TRUE(book.Accrue(a).has_value());
    EXPECT_EQ(book.EncodedSize(), EncodeBook(book).size()) << d;
    book.Prune(Utc(2026, 11, d, 12));
    EXPECT_EQ(book.EncodedSize(), EncodeBook(book).size()) << d;
  }
}

}  // namespace
}  // namespace gpugate::usage
