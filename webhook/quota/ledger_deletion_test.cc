// The local ledger and pods being deleted (Ledger::ReleaseAt): a charge keeps counting until its
// pod is released or its release time has passed, whichever comes first, on an injected clock.
#include <gtest/gtest.h>

#include <filesystem>

#include "quota/ledger.h"
#include "quota/testing.h"
#include "support/temp_dir.h"

namespace gpugate::quota {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using testutil::JournalScript;
using testutil::Outcome;
using testutil::RenderUsage;
using testutil::ScriptedJournal;
using T = JournalRecord::Type;

constexpr const char* kGpu = "nvidia.com/gpu";
constexpr const char* kFull =
    "exceeded quota: team-a, requested: nvidia.com/gpu=1, used: nvidia.com/gpu=4, "
    "limited: nvidia.com/gpu=4";

Amounts Gpus(int64_t n) { return {{kGpu, n * kMilli}}; }

WallClock::time_point At(std::string_view rfc3339) { return *ParseRfc3339(rfc3339); }

QuotaConfig FourGpus() {
  QuotaConfig config;
  config.limits["team-a"] = Gpus(4);
  return config;
}

// The test's clock and what the ledger reported as ended.
struct World {
  WallClock::time_point now = At("2026-11-27T20:00:00Z");
  std::vector<std::string> ended;  // "team-a/p@u{nvidia.com/gpu=1} at 2026-..."

  LedgerOptions Options() {
    return LedgerOptions{
        .clock = [this] { return now; },
        .onChargeEnded =
            [this](const EndedCharge& e) {
              ended.push_back(e.charge.pod.ns + "/" + e.charge.pod.name + "@" + e.charge.pod.uid +
                              "{" + FormatAmounts(e.charge.amounts) + "} at " +
                              FormatRfc3339(e.endedAt));
            },
    };
  }
};

// "team-a/p@u{nvidia.com/gpu=1}<2026-11-27T20:01:00.000Z": charges, with their release times.
std::string RenderCharges(const Ledger& ledger) {
  std::string out;
  for (const Charge& c : ledger.Charges()) {
    if (!out.empty()) out += ' ';
    out += c.pod.ns + "/" + c.pod.name + "@" + c.pod.uid + "{" + FormatAmounts(c.amounts) + "}";
    if (c.releaseAt) out += "<" + FormatRfc3339(*c.releaseAt);
  }
  return out;
}

std::string Marked(const Result<bool>& r) {
  if (!r) return "error: " + r.error().message;
  return *r ? "terminating" : "not charged";
}

TEST(LedgerDeletion, ATerminatingPodCountsUntilItsReleaseTimeHasPassed) {
  World world;
  Ledger ledger(FourGpus(), nullptr, world.Options());
  ASSERT_TRUE(ledger.Open());
  ASSERT_EQ(Outcome(ledger.Reserve({"team-a", "train", "u1"}, Gpus(4), false)), "charged");
  // Deleted with a 30 s grace period at 20:00:00: deletionTimestamp 20:00:30, counts to 20:01:00.
  EXPECT_EQ(
      Marked(ledger.ReleaseAt({"team-a", "train", "u1"}, At("2026-11-27T20:01:00Z"), kNoDeadline)),
      "terminating");
  EXPECT_EQ(RenderCharges(ledger), "team-a/train@u1{nvidia.com/gpu=4}<2026-11-27T20:01:00.000Z");
  // The namespace is still at its limit: a new pod is refused while the old one terminates.
  EXPECT_EQ(Outcome(ledger.Reserve({"team-a", "next", "u2"}, Gpus(1), false)), kFull);
  world.now = At("2026-11-27T20:01:00Z");  // not past yet: ResourceQuota counts it still
  EXPECT_EQ(Outcome(ledger.Reserve({"team-a", "next", "u2"}, Gpus(1), false)), kFull);
  EXPECT_EQ(RenderUsage(ledger), "team-a{nvidia.com/gpu=4/4}");
  EXPECT_TRUE(world.ended.empty());
  world.now += milliseconds(1);  // past: stuck terminating, it no longer counts
  EXPECT_EQ(RenderUsage(ledger), "team-a{nvidia.com/gpu=0/4}");
  EXPECT_EQ(Outcome(ledger.Reserve({"team-a", "next", "u2"}, Gpus(1), false)), "charged");
  EXPECT_EQ(RenderCharges(ledger), "team-a/next@u2{nvidia.com/gpu=1}");
  EXPECT_EQ(world.ended, std::vector<std::string>{
                             "team-a/train@u1{nvidia.com/gpu=4} at 2026-11-27T20:01:00.000Z"});
  // The kubelet's final DELETE, late: nothing is charged under the name any more.
  EXPECT_EQ(Outcome(ledger.Release({"team-a", "train", "u1"})), "not released");
}

TEST(LedgerDeletion, TheFinalReleaseEndsATerminatingChargeAtOnce) {
  World world;
  Ledger ledger(FourGpus(), nullptr, world.Options());
  ASSERT_TRUE(ledger.Open());
  ASSERT_EQ(Outcome(ledger.Reserve({"team-a", "train", "u1"}, Gpus(4), false)), "charged");
  ASSERT_EQ(
      Marked(ledger.ReleaseAt({"team-a", "train", "u1"}, At("2026-11-27T20:10:00Z"), kNoDeadline)),
      "terminating");
  world.now = At("2026-11-27T20:00:12Z");
  EXPECT_EQ(Outcome(ledger.Release({"team-a", "train", "u1"})), "released");
  EXPECT_EQ(RenderUsage(ledger), "team-a{nvidia.com/gpu=0/4}");
  EXPECT_EQ(world.ended, std::vector<std::string>{
                             "team-a/train@u1{nvidia.com/gpu=4} at 2026-11-27T20:00:12.000Z"});
}

TEST(LedgerDeletion, AReleaseTimeOnlyMovesEarlier) {
  struct Step {
    const char* releaseAt;
    const char* want;  // the charge's release time afterwards
  } steps[] = {
      {"2026-11-27T20:02:00Z", "2026-11-27T20:02:00.000Z"},
      {"2026-11-27T20:05:00Z", "2026-11-27T20:02:00.000Z"},  // a later DELETE cannot lengthen
      {"2026-11-27T20:00:40Z", "2026-11-27T20:00:40.000Z"},  // a shorter grace period moves it
  };
  World world;
  Ledger ledger(FourGpus(), nullptr, world.Options());
  ASSERT_TRUE(ledger.Open());
  ASSERT_EQ(Outcome(ledger.Reserve({"team-a", "train", "u1"}, Gpus(2), false)), "charged");
  for (const Step& s : steps) {
    SCOPED_TRACE(s.releaseAt);
    EXPECT_EQ(Marked(ledger.ReleaseAt({"team-a", "train", "u1"}, At(s.releaseAt), kNoDeadline)),
              "terminating");
    EXPECT_EQ(RenderCharges(ledger), "team-a/train@u1{nvidia.com/gpu=2}<" + std::string(s.want));
  }
}

TEST(LedgerDeletion, MarksTheDeletedUidOrEveryChargeWhenTheUidIsUnknown) {
  World world;
  Ledger ledger(FourGpus(), nullptr, world.Options());
  ASSERT_TRUE(ledger.Open());
  ASSERT_EQ(Outcome(ledger.Reserve({"team-a", "p", "u1"}, Gpus(1), false)), "charged");
  ASSERT_EQ(Outcome(ledger.Reserve({"team-a", "p", "u2"}, Gpus(1), false)), "charged");
  EXPECT_EQ(
      Marked(ledger.ReleaseAt({"team-a", "p", "u2"}, At("2026-11-27T20:01:00Z"), kNoDeadline)),
      "terminating");
  EXPECT_EQ(RenderCharges(ledger),
            "team-a/p@u1{nvidia.com/gpu=1} team-a/p@u2{nvidia.com/gpu=1}<2026-11-27T20:01:00.000Z");
  EXPECT_EQ(Marked(ledger.ReleaseAt({"team-a", "p", "u-unknown"}, At("2026-11-27T20:00:50Z"),
                                    kNoDeadline)),
            "terminating");
  EXPECT_EQ(RenderCharges(ledger),
            "team-a/p@u1{nvidia.com/gpu=1}<2026-11-27T20:00:50.000Z "
            "team-a/p@u2{nvidia.com/gpu=1}<2026-11-27T20:00:50.000Z");
  EXPECT_EQ(
      Marked(ledger.ReleaseAt({"team-a", "nobody", "u"}, At("2026-11-27T20:01:00Z"), kNoDeadline)),
      "not charged");
}

TEST(LedgerDeletion, AReleaseTimeAlreadyPastEndsTheChargeAtIt) {
  World world;
  Ledger ledger(FourGpus(), nullptr, world.Options());
  ASSERT_TRUE(ledger.Open());
  ASSERT_EQ(Outcome(ledger.Reserve({"team-a", "p", "u1"}, Gpus(3), false)), "charged");
  EXPECT_EQ(
      Marked(ledger.ReleaseAt({"team-a", "p", "u1"}, At("2026-11-27T19:59:00Z"), kNoDeadline)),
      "terminating");
  EXPECT_EQ(RenderCharges(ledger), "");
  EXPECT_EQ(world.ended,
            std::vector<std::string>{"team-a/p@u1{nvidia.com/gpu=3} at 2026-11-27T19:59:00.000Z"});
}

TEST(LedgerDeletion, JournalsEachChangedReleaseTimeBeforeAnswering) {
  World world;
  JournalScript script;
  Ledger ledger(FourGpus(), std::make_unique<ScriptedJournal>(&script), world.Options());
  ASSERT_TRUE(ledger.Open());
  ASSERT_EQ(Outcome(ledger.Reserve({"team-a", "p", "u1"}, Gpus(1), false)), "charged");
  const PodRef pod{"team-a", "p", "u1"};
  ASSERT_EQ(Marked(ledger.ReleaseAt(pod, At("2026-11-27T20:01:00Z"), kNoDeadline)), "terminating");
  // The same time again (a repeated DELETE) or a later one changes nothing and writes nothing.
  ASSERT_EQ(Marked(ledger.ReleaseAt(pod, At("2026-11-27T20:01:00Z"), kNoDeadline)), "terminating");
  ASSERT_EQ(Marked(ledger.ReleaseAt(pod, At("2026-11-27T20:09:00Z"), kNoDeadline)), "terminating");
  JournalRecord mark{T::kReleaseAt, "team-a", "p", "u1", {}, At("2026-11-27T20:01:00Z")};
  EXPECT_EQ(script.appended,
            (std::vector<JournalRecord>{{T::kCharge, "team-a", "p", "u1", Gpus(1)}, mark}));
  // A failed write changes nothing: the charge keeps its earlier release time.
  script.failAppends = true;
  EXPECT_EQ(Marked(ledger.ReleaseAt(pod, At("2026-11-27T20:00:30Z"), kNoDeadline)),
            "error: disk full");
  EXPECT_EQ(RenderCharges(ledger), "team-a/p@u1{nvidia.com/gpu=1}<2026-11-27T20:01:00.000Z");
  // Expiry writes nothing: the journal's mark already says when the charge ends.
  world.now = At("2026-11-27T20:02:00Z");
  EXPECT_EQ(RenderCharges(ledger), "");
  EXPECT_EQ(script.appended.size(), 2u);
}

TEST(LedgerDeletion, ReplayRestoresReleaseTimesAndDropsThosePast) {
  World world;
  JournalScript script;
  script.replay = {
      {T::kCharge, "team-a", "old", "u0", Gpus(1)},
      {T::kReleaseAt, "team-a", "old", "u0", {}, At("2026-11-27T19:59:00Z")},
      {T::kCharge, "team-a", "train", "u1", Gpus(2)},
      {T::kReleaseAt, "team-a", "train", "u1", {}, At("2026-11-27T20:01:00Z")},
      {T::kCharge, "team-a", "serve", "u2", Gpus(1)},
      {T::kReleaseAt, "team-a", "serve", "u2", {}, At("2026-11-27T20:03:00Z")},
      {T::kRelease, "team-a", "serve", "u2", {}},
  };
  Ledger ledger(FourGpus(), std::make_unique<ScriptedJournal>(&script), world.Options());
  ASSERT_TRUE(ledger.Open());
  EXPECT_EQ(RenderCharges(ledger), "team-a/train@u1{nvidia.com/gpu=2}<2026-11-27T20:01:00.000Z");
  // The release was reported by the process that journaled it; the charge found past its
  // release time is reported now (docs/decisions.md: at least once).
  EXPECT_EQ(world.ended, std::vector<std::string>{
                             "team-a/old@u0{nvidia.com/gpu=1} at 2026-11-27T19:59:00.000Z"});
}

TEST(LedgerDeletion, CompactionKeepsEachChargesReleaseTime) {
  World world;
  JournalScript script;
  Ledger ledger(FourGpus(), std::make_unique<ScriptedJournal>(&script), world.Options());
  ASSERT_TRUE(ledger.Open());
  ASSERT_EQ(Outcome(ledger.Reserve({"team-a", "p", "u1"}, Gpus(1), false)), "charged");
  ASSERT_EQ(Outcome(ledger.Reserve({"team-a", "p", "u2"}, Gpus(1), false)), "charged");
  ASSERT_EQ(
      Marked(ledger.ReleaseAt({"team-a", "p", "u1"}, At("2026-11-27T20:01:00Z"), kNoDeadline)),
      "terminating");
  script.wantCompaction = true;
  ASSERT_EQ(Outcome(ledger.Reserve({"team-a", "q", "u3"}, Gpus(1), false)), "charged");
  ASSERT_EQ(script.compactions.size(), 1u);
  // Replayed, the compacted journal is the same state: u1 marked, u2 and u3 not.
  script.replay = script.compactions[0];
  script.wantCompaction = false;
  Ledger reopened(FourGpus(), std::make_unique<ScriptedJournal>(&script), world.Options());
  ASSERT_TRUE(reopened.Open());
  EXPECT_EQ(RenderCharges(reopened),
            "team-a/p@u1{nvidia.com/gpu=1}<2026-11-27T20:01:00.000Z "
            "team-a/p@u2{nvidia.com/gpu=1} team-a/q@u3{nvidia.com/gpu=1}");
  EXPECT_EQ(RenderCharges(reopened), RenderCharges(ledger));
}

TEST(LedgerDeletion, ATerminatingChargeAndItsReleaseTimeSurviveARestartOnTheFile) {
  gpugate::testing::TempDir tmp{"gpugate-ledger-deletion-"};
  const std::string path = tmp.File("ledger");
  World world;
  auto open = [&] {
    auto journal = OpenFileJournal(path);
    EXPECT_TRUE(journal.has_value());
    auto ledger = std::make_unique<Ledger>(FourGpus(), std::move(*journal), world.Options());
    EXPECT_TRUE(ledger->Open());
    return ledger;
  };
  {
    auto ledger = open();
    ASSERT_EQ(Outcome(ledger->Reserve({"team-a", "train", "u1"}, Gpus(4), false)), "charged");
    ASSERT_EQ(Marked(ledger->ReleaseAt({"team-a", "train", "u1"}, At("2026-11-27T20:01:00Z"),
                                       kNoDeadline)),
              "terminating");
  }
  auto reopened = open();
  EXPECT_EQ(RenderCharges(*reopened), "team-a/train@u1{nvidia.com/gpu=4}<2026-11-27T20:01:00.000Z");
  EXPECT_EQ(Outcome(reopened->Reserve({"team-a", "next", "u2"}, Gpus(1), false)), kFull);
  world.now = At("2026-11-27T20:01:01Z");
  EXPECT_EQ(Outcome(reopened->Reserve({"team-a", "next", "u2"}, Gpus(1), false)), "charged");
}

}  // namespace
}  // namespace gpugate::quota
