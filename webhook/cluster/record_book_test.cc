// The usage a GPUQuota record's book gains when a write drops charges: the start and end edges,
// pods that never ran, the size bound, and a book that cannot be read.
#include "cluster/record_book.h"

#include <gtest/gtest.h>

#include "usage/book_codec.h"
#include "usage/testing.h"

namespace gpugate::cluster {
namespace {

using nlohmann::json;
using quota::kMilli;
using std::chrono::hours;
using std::chrono::minutes;
using std::chrono::seconds;
using usage::testing::Render;
using usage::testing::Utc;

// 2026-11-18 12:00 UTC.
const WallClock::time_point kNow = Utc(2026, 11, 18, 12);

quota::Amounts Gpus(int64_t n) { return {{"nvidia.com/gpu", n * kMilli}}; }

std::string Held(const std::optional<usage::Span>& span) {
  if (!span) return "nothing";
  auto h = [](usage::sys_seconds t) {
    return std::to_string(std::chrono::duration_cast<minutes>(t - Utc(2026, 11, 18)).count());
  };
  return h(span->from) + ".." + h(span->to);  // minutes after 2026-11-18 00:00 UTC
}

TEST(ClusterRecordBookTest, HeldSpanFollowsTheStartAndEndEdges) {
  const auto at = [](int h, int m = 0) -> WallClock::time_point { return Utc(2026, 11, 18, h, m); };
  RecordedCharge recorded{"u1", at(1), Gpus(1), at(2)};
  RecordedCharge unstarted{"u1", at(1), Gpus(1)};
  struct Case {
    const char* name;
    RecordedCharge charge;
    std::optional<PodInfo> pod;
    const char* want;
  };
  const Case cases[] = {
      {"never ran: no start recorded or shown", unstarted, PodInfo{.uid = "u1"}, "nothing"},
      {"never ran, pod gone", unstarted, std::nullopt, "nothing"},
      {"finished: its end", recorded, PodInfo{.uid = "u1", .terminal = true, .ended = at(5)},
       "120..300"},
      {"start never recorded but shown: used", unstarted,
       PodInfo{.uid = "u1", .terminal = true, .started = at(3), .ended = at(5)}, "180..300"},
      {"a recorded start wins over the watch's", recorded,
       PodInfo{.uid = "u1", .terminal = true, .started = at(3), .ended = at(5)}, "120..300"},
      {"deleted past its grace, no end shown: deletionTimestamp + grace", recorded,
       PodInfo{.uid = "u1", .deleting = true, .releaseAt = at(7)}, "120..420"},
      {"final DELETE while shown running: now", recorded, PodInfo{.uid = "u1"}, "120..720"},
      {"gone from the watch unseen: now", recorded, std::nullopt, "120..720"},
      {"an end after now is cut at now", recorded,
       PodInfo{.uid = "u1", .terminal = true, .ended = at(13)}, "120..720"},
      {"an end before the start holds nothing", recorded,
       PodInfo{.uid = "u1", .terminal = true, .ended = at(1)}, "60..60"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(Held(HeldSpan(c.charge, c.pod ? &*c.pod : nullptr, kNow)), c.want) << c.name;
  }
}

TEST(ClusterRecordBookTest, DroppedAreTheChargesNoLongerHeldByNameAndUid) {
  ChargeMap before = {{"a", {{"u1", kNow, Gpus(1)}, {"u2", kNow, Gpus(1)}}},
                      {"b", {{"u3", kNow, Gpus(1)}}}};
  ChargeMap after = {{"a", {{"u2", kNow, Gpus(1)}}}, {"c", {{"u4", kNow, Gpus(1)}}}};
  std::string out;
  for (const DroppedCharge& d : Dropped(before, after)) out += d.pod + "@" + d.charge.uid + " ";
  EXPECT_EQ(out, "a@u1 b@u3 ");
}

BookSettings Settings(size_t maxBytes = 256 * 1024) {
  return {.zone = TimeZone::Utc(), .options = {.historyMonths = 13, .maxBytes = maxBytes}};
}

// A record in team-a whose book holds `hoursOnThe17th` GPU-hours on 2026-11-17 (none: no book).
GpuQuotaRecord Record(int hoursOnThe17th = 0) {
  GpuQuotaRecord record{.ns = "team-a"};
  if (hoursOnThe17th > 0) {
    usage::UsageBook book(TimeZone::Utc(), Settings().options);
    usage::Accrual a{.key = {"team-a", "nvidia.com/gpu", ""},
                     .milli = kMilli,
                     .held = {Utc(2026, 11, 17), Utc(2026, 11, 17, hoursOnThe17th)}};
    EXPECT_TRUE(book.Accrue({&a, 1}));
    record.usage = json::parse(usage::EncodeBook(book));
  }
  return record;
}

std::string BookOf(const GpuQuotaRecord& record) {
  if (record.usage.is_null()) return "absent";
  Result<usage::UsageBook> book =
      usage::DecodeBook(record.usage.dump(), TimeZone::Utc(), Settings().options);
  return book ? Render(*book) : "unreadable: " + book.error().message;
}

TEST(ClusterRecordBookTest, AccruesWhatTheWriteDrops) {
  const auto at = [](int h) -> WallClock::time_point { return Utc(2026, 11, 18, h); };
  PodMap pods = {{"done", PodInfo{.uid = "u1", .terminal = true, .ended = at(6)}},
                 {"shared", PodInfo{.uid = "u2", .terminal = true, .ended = at(4)}}};
  RecordedCharge done{"u1", at(0), Gpus(2), Utc(2026, 11, 17, 22)};
  RecordedCharge pinned{
      "u2", at(0), {{"nvidia.com/gpu", 500}, {"nvidia.com/gpu@a100", 500}}, at(2)};
  RecordedCharge neverRan{"u3", at(0), Gpus(4)};
  const size_t stored = Record(3).usage.dump().size();  // no room to grow
  struct Case {
    const char* name;
    GpuQuotaRecord record;
    std::vector<DroppedCharge> dropped;
    size_t maxBookBytes;
    const char* wantBook;
    size_t wantProblems;
  };
  const Case cases[] = {
      {"nothing dropped: the book is left as it is", Record(), {}, SIZE_MAX, "absent", 0},
      {"a finished pod across midnight is split between the days",
       Record(),
       {{"done", done}},
       SIZE_MAX,
       "team-a/nvidia.com/gpu 2026-11-17=4h 2026-11-18=12h",
       0},
      {"added to what the book holds",
       Record(3),
       {{"done", done}},
       SIZE_MAX,
       "team-a/nvidia.com/gpu 2026-11-17=7h 2026-11-18=12h",
       0},
      {"a pod pinned to one model accrues under it",
       Record(),
       {{"shared", pinned}},
       SIZE_MAX,
       "team-a/nvidia.com/gpu@a100 2026-11-18=1h",
       0},
      {"a pod that never ran accrues nothing",
       Record(),
       {{"gone", neverRan}},
       SIZE_MAX,
       "absent",
       0},
      {"the size bound refuses the pod; the book stays as it was",
       Record(3),
       {{"shared", pinned}},
       stored,
       "team-a/nvidia.com/gpu 2026-11-17=3h",
       1},
  };
  for (const Case& c : cases) {
    GpuQuotaRecord record = c.record;
    std::vector<std::string> problems =
        AccrueDropped(record, c.dropped, pods, kNow, Settings(), c.maxBookBytes);
    EXPECT_EQ(BookOf(record), c.wantBook) << c.name;
    EXPECT_EQ(problems.size(), c.wantProblems) << c.name;
  }
}

TEST(ClusterRecordBookTest, ABookKeptInAnotherZoneIsLeftAsStoredAndReported) {
  usage::UsageBook berlin(usage::testing::Zone("Europe/Berlin"), Settings().options);
  GpuQuotaRecord record{.ns = "team-a", .usage = json::parse(usage::EncodeBook(berlin))};
  const json stored = record.usage;
  RecordedCharge done{"u1", kNow, Gpus(1), kNow - hours(1)};
  std::vector<std::string> problems = AccrueDropped(
      record, std::vector<DroppedCharge>{{"done", done}}, {}, kNow, Settings(), SIZE_MAX);
  EXPECT_EQ(record.usage, stored);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0],
            "usage of 1 finished pod(s) in team-a not recorded: its GPUQuota's status.usage "
            "cannot be read (usage record: its days are in time zone \"Europe/Berlin\", not the "
            "configured \"UTC\"); it is left as stored");
}

TEST(ClusterRecordBookTest, BookRoomIsTheBoundLessTheRestOfTheRecord) {
  GpuQuotaRecord record = Record(3);
  const size_t rest = [&] {
    GpuQuotaRecord without = record;
    without.usage = json();
    return EncodeGpuQuota(without, "gpugate", {}).dump().size();
  }();
  const size_t whole = EncodeGpuQuota(record, "gpugate", {}).dump().size();
  // The room is exact: a book of that size makes the record exactly the bound.
  EXPECT_EQ(BookRoom(record, "gpugate", {}, whole), record.usage.dump().size());
  EXPECT_EQ(BookRoom(record, "gpugate", {}, rest), 0u);
  EXPECT_EQ(BookRoom(record, "gpugate", {}, 0), SIZE_MAX);
}

}  // namespace
}  // namespace gpugate::cluster
