// The local ledger and pods starting (Ledger::RecordStart): a charge learns once when its pod
// started holding its devices, durably, and a release of a started charge journals when it ended.
#include <gtest/gtest.h>

#include "quota/ledger.h"
#include "quota/testing.h"
#include "support/temp_dir.h"

namespace gpugate::quota {
namespace {

using testutil::JournalScript;
using testutil::ScriptedJournal;
using T = JournalRecord::Type;

constexpr const char* kGpu = "nvidia.com/gpu";

Amounts Gpus(int64_t n) { return {{kGpu, n * kMilli}}; }

WallClock::time_point At(std::string_view rfc3339) { return *ParseRfc3339(rfc3339); }

struct World {
  WallClock::time_point now = At("2026-11-27T20:00:00Z");
  std::vector<std::string> ended;  // "team-a/p@u from 2026-... to 2026-..."

  LedgerOptions Options() {
    return LedgerOptions{
        .clock = [this] { return now; },
        .onChargeEnded =
            [this](const EndedCharge& e) {
              ended.push_back(e.charge.pod.ns + "/" + e.charge.pod.name + "@" + e.charge.pod.uid +
                              (e.charge.started ? " from " + FormatRfc3339(*e.charge.started)
                                                : " never started") +
                              " to " + FormatRfc3339(e.endedAt));
            },
    };
  }
};

// "team-a/p@u>2026-11-27T20:00:05.000Z": charges, with their starts.
std::string RenderStarts(const Ledger& ledger) {
  std::string out;
  for (const Charge& c : ledger.Charges()) {
    if (!out.empty()) out += ' ';
    out += c.pod.ns + "/" + c.pod.name + "@" + c.pod.uid;
    if (c.started) out += ">" + FormatRfc3339(*c.started);
  }
  return out;
}

std::string Started(const Result<bool>& r) {
  if (!r) return "error: " + r.error().message;
  return *r ? "started" : "nothing to start";
}

TEST(LedgerStart, IsRecordedOnceAndJournaledBeforeTheAnswer) {
  World world;
  JournalScript script;
  Ledger ledger({}, std::make_unique<ScriptedJournal>(&script), world.Options());
  ASSERT_TRUE(ledger.Open());
  const PodRef p{"team-a", "p", "u1"};
  EXPECT_EQ(Started(ledger.RecordStart(p, At("2026-11-27T20:00:05Z"), kNoDeadline)),
            "nothing to start");  // no charge yet
  ASSERT_TRUE(ledger.Reserve(p, Gpus(1), false));
  EXPECT_TRUE(ledger.AwaitsStart(p));
  EXPECT_EQ(Started(ledger.RecordStart(p, At("2026-11-27T20:00:05Z"), kNoDeadline)), "started");
  EXPECT_FALSE(ledger.AwaitsStart(p));
  // A later status update with another startTime changes nothing and writes nothing.
  EXPECT_EQ(Started(ledger.RecordStart(p, At("2026-11-27T20:09:00Z"), kNoDeadline)),
            "nothing to start");
  EXPECT_EQ(RenderStarts(ledger), "team-a/p@u1>2026-11-27T20:00:05.000Z");
  ASSERT_EQ(script.appended.size(), 2u);
  EXPECT_EQ(script.appended[1].type, T::kStart);
  EXPECT_EQ(script.appended[1].at, At("2026-11-27T20:00:05Z"));

  // The release carries the time the charge ended.
  world.now = At("2026-11-27T21:00:00Z");
  ASSERT_TRUE(ledger.Release(p));
  ASSERT_EQ(script.appended.size(), 3u);
  EXPECT_EQ(script.appended[2].type, T::kRelease);
  EXPECT_EQ(script.appended[2].at, world.now);
  EXPECT_EQ(world.ended, std::vector<std::string>{"team-a/p@u1 from 2026-11-27T20:00:05.000Z to "
                                                  "2026-11-27T21:00:00.000Z"});
}

TEST(LedgerStart, AFailedWriteStartsNothingAndALaterUpdateRetries) {
  World world;
  JournalScript script;
  Ledger ledger({}, std::make_unique<ScriptedJournal>(&script), world.Options());
  ASSERT_TRUE(ledger.Open());
  const PodRef p{"team-a", "p", "u1"};
  ASSERT_TRUE(ledger.Reserve(p, Gpus(1), false));
  script.failAppends = true;
  EXPECT_EQ(Started(ledger.RecordStart(p, At("2026-11-27T20:00:05Z"), kNoDeadline)),
            "error: disk full");
  EXPECT_EQ(RenderStarts(ledger), "team-a/p@u1");
  EXPECT_TRUE(ledger.AwaitsStart(p));
  script.failAppends = false;
  EXPECT_EQ(Started(ledger.RecordStart(p, At("2026-11-27T20:00:07Z"), kNoDeadline)), "started");
  EXPECT_EQ(RenderStarts(ledger), "team-a/p@u1>2026-11-27T20:00:07.000Z");
}

TEST(LedgerStart, UntimedReleaseForAChargeThatNeverStarted) {
  World world;
  JournalScript script;
  Ledger ledger({}, std::make_unique<ScriptedJournal>(&script), world.Options());
  ASSERT_TRUE(ledger.Open());
  ASSERT_TRUE(ledger.Reserve({"team-a", "p", "u1"}, Gpus(1), false));
  ASSERT_TRUE(ledger.Release({"team-a", "p", "u1"}));
  ASSERT_EQ(script.appended.size(), 2u);
  EXPECT_FALSE(script.appended[1].at.has_value());  // format 1, as before starts existed
  EXPECT_EQ(world.ended,
            std::vector<std::string>{"team-a/p@u1 never started to 2026-11-27T20:00:00.000Z"});
}

TEST(LedgerStart, OnlyTheNamedUidStartsUnlessNoChargeHasIt) {
  World world;
  Ledger ledger({}, nullptr, world.Options());
  ASSERT_TRUE(ledger.Open());
  ASSERT_TRUE(ledger.Reserve({"team-a", "p", "u1"}, Gpus(1), false));
  ASSERT_TRUE(ledger.Reserve({"team-a", "p", "u2"}, Gpus(1), false));
  ASSERT_TRUE(ledger.RecordStart({"team-a", "p", "u2"}, At("2026-11-27T20:00:01Z"), kNoDeadline));
  EXPECT_EQ(RenderStarts(ledger), "team-a/p@u1 team-a/p@u2>2026-11-27T20:00:01.000Z");
  ASSERT_TRUE(ledger.RecordStart({"team-a", "p", ""}, At("2026-11-27T20:00:02Z"), kNoDeadline));
  EXPECT_EQ(RenderStarts(ledger),
            "team-a/p@u1>2026-11-27T20:00:02.000Z team-a/p@u2>2026-11-27T20:00:01.000Z");
}

// The real journal file: starts and ends survive a restart, and a replay ends every charge at
// the time the process before ended it, even a release time that passed before a later release
// of the same name (live, Expire ended it at its release time first).
TEST(LedgerStart, ReplayFromTheJournalFileEndsChargesWhereTheyEnded) {
  gpugate::testing::TempDir tmp("gpugate-ledger-start-");
  const std::string path = tmp.path() + "/ledger";
  World first;
  {
    auto journal = OpenFileJournal(path);
    ASSERT_TRUE(journal);
    Ledger ledger({}, std::move(*journal), first.Options());
    ASSERT_TRUE(ledger.Open());
    ASSERT_TRUE(ledger.Reserve({"team-a", "a", "ua"}, Gpus(1), false));
    ASSERT_TRUE(ledger.RecordStart({"team-a", "a", "ua"}, At("2026-11-27T20:00:00Z"), kNoDeadline));
    ASSERT_TRUE(ledger.ReleaseAt({"team-a", "a", "ua"}, At("2026-11-27T20:10:00Z"), kNoDeadline));
    first.now = At("2026-11-27T20:30:00Z");  // a's release time has passed
    ASSERT_TRUE(ledger.Reserve({"team-a", "a", "ub"}, Gpus(2), false));
    ASSERT_TRUE(ledger.RecordStart({"team-a", "a", "ub"}, At("2026-11-27T20:31:00Z"), kNoDeadline));
    ASSERT_TRUE(ledger.Reserve({"team-a", "c", "uc"}, Gpus(1), false));
    ASSERT_TRUE(ledger.RecordStart({"team-a", "c", "uc"}, At("2026-11-27T20:32:00Z"), kNoDeadline));
    first.now = At("2026-11-27T21:00:00Z");
    ASSERT_TRUE(ledger.Release({"team-a", "a", "ub"}));
  }
  EXPECT_EQ(first.ended,
            (std::vector<std::string>{
                "team-a/a@ua from 2026-11-27T20:00:00.000Z to 2026-11-27T20:10:00.000Z",
                "team-a/a@ub from 2026-11-27T20:31:00.000Z to 2026-11-27T21:00:00.000Z",
            }));
  World second;
  second.now = At("2026-11-27T22:00:00Z");
  auto journal = OpenFileJournal(path);
  ASSERT_TRUE(journal);
  Ledger ledger({}, std::move(*journal), second.Options());
  ASSERT_TRUE(ledger.Open());
  EXPECT_EQ(RenderStarts(ledger), "team-a/c@uc>2026-11-27T20:32:00.000Z");
  EXPECT_TRUE(second.ended.empty());  // ends replayed were reported by the process before
}

TEST(LedgerStart, CompactionKeepsEachStartAfterItsCharge) {
  World world;
  JournalScript script;
  Ledger ledger({}, std::make_unique<ScriptedJournal>(&script), world.Options());
  ASSERT_TRUE(ledger.Open());
  ASSERT_TRUE(ledger.Reserve({"team-a", "p", "u1"}, Gpus(1), false));
  ASSERT_TRUE(ledger.Reserve({"team-a", "q", "u2"}, Gpus(1), false));
  script.wantCompaction = true;
  ASSERT_TRUE(ledger.RecordStart({"team-a", "p", "u1"}, At("2026-11-27T20:00:05Z"), kNoDeadline));
  ASSERT_EQ(script.compactions.size(), 1u);
  const std::vector<JournalRecord>& live = script.compactions[0];
  ASSERT_EQ(live.size(), 3u);
  EXPECT_EQ(live[0].type, T::kCharge);
  EXPECT_EQ(live[1].type, T::kStart);
  EXPECT_EQ(live[1].name, "p");
  EXPECT_EQ(live[1].at, At("2026-11-27T20:00:05Z"));
  EXPECT_EQ(live[2].type, T::kCharge);
  EXPECT_EQ(live[2].name, "q");
}

}  // namespace
}  // namespace gpugate::quota
