// The local ledger's usage through a real journal file: a charge's usage [start, end) enters the
// book exactly once, in the write that ends it, and a restart (replay, or a compacted journal
// with the book as its first record) rebuilds the same book.
#include "usage/usage_keeper.h"

#include <gtest/gtest.h>

#include "quota/journal.h"
#include "quota/ledger.h"
#include "support/temp_dir.h"
#include "usage/civil_date.h"

namespace gpugate::usage {
namespace {

using quota::kMilli;
using quota::PodRef;

WallClock::time_point At(std::string_view rfc3339) { return *ParseRfc3339(rfc3339); }

sys_seconds Sec(std::string_view rfc3339) {
  return std::chrono::floor<std::chrono::seconds>(At(rfc3339));
}

quota::Amounts Gpus(int64_t n) { return {{"nvidia.com/gpu", n * kMilli}}; }

// "team-a nvidia.com/gpu=2.5h team-b ...": the November 2026 report by namespace at `now`.
std::string Hours(const UsageKeeper& keeper, std::string_view now) {
  Result<ReportQuery> query = QueryForMonth("2026-11");
  EXPECT_TRUE(query);
  std::string out;
  for (const ReportRow& row : keeper.Report(*query, Sec(now)).rows) {
    out += (out.empty() ? "" : " ") + row.ns + " " + row.resource + "=" +
           FormatGpuHours(row.milliGpuSeconds) + "h";
  }
  return out;
}

class UsageKeeperTest : public ::testing::Test {
 protected:
  // A ledger on the journal file with a fresh keeper, as `gpugate serve` opens them.
  void Open() {
    ledger_.reset();
    auto keeper = UsageKeeper::Create(UsageConfig{});
    ASSERT_TRUE(keeper);
    keeper_ = std::move(*keeper);
    auto journal = quota::OpenFileJournal(path_, {.sync = false});
    ASSERT_TRUE(journal);
    ledger_ = std::make_unique<quota::Ledger>(
        quota::QuotaConfig{}, std::move(*journal),
        quota::LedgerOptions{.clock = [this] { return now_; }, .usage = keeper_.get()});
    ASSERT_TRUE(ledger_->Open());
  }

  void Run(const PodRef& pod, int gpus, std::string_view started) {
    ASSERT_TRUE(ledger_->Reserve(pod, Gpus(gpus), false));
    ASSERT_TRUE(ledger_->RecordStart(pod, At(started), quota::kNoDeadline));
  }

  gpugate::testing::TempDir tmp_{"gpugate-usage-keeper-"};
  std::string path_ = tmp_.path() + "/ledger.journal";
  WallClock::time_point now_ = At("2026-11-02T10:00:00Z");
  std::unique_ptr<UsageKeeper> keeper_;
  std::unique_ptr<quota::Ledger> ledger_;
};

TEST_F(UsageKeeperTest, EveryEdgeAccruesOnceAndAReplayRebuildsTheSameBook) {
  Open();
  Run({"team-a", "done", "u1"}, 2, "2026-11-02T10:00:00Z");
  Run({"team-a", "graceful", "u2"}, 1, "2026-11-02T10:00:00Z");
  Run({"team-b", "running", "u3"}, 4, "2026-11-02T10:30:00Z");
  // Charged, never started: accrues nothing.
  ASSERT_TRUE(ledger_->Reserve({"team-b", "pending", "u4"}, Gpus(8), false));
  ASSERT_TRUE(ledger_->ReleaseAt({"team-a", "graceful", "u2"}, At("2026-11-02T10:30:00Z"),
                                 quota::kNoDeadline));
  now_ = At("2026-11-02T11:00:00Z");
  ASSERT_TRUE(ledger_->Release({"team-a", "done", "u1"}));     // 2 GPUs x 1 h
  ASSERT_TRUE(ledger_->Release({"team-b", "pending", "u4"}));  // never ran
  ASSERT_TRUE(ledger_->Release({"team-a", "done", "u1"}) == false);
  // graceful: 1 GPU x 30 min, to its release time; running: 4 GPUs x 30 min so far.
  EXPECT_EQ(Hours(*keeper_, "2026-11-02T11:00:00Z"),
            "team-a nvidia.com/gpu=2.5h team-b nvidia.com/gpu=2h");
  const std::string book = keeper_->Snapshot();

  Open();  // the journal replayed by a new process, an hour later
  now_ = At("2026-11-02T12:00:00Z");
  EXPECT_EQ(keeper_->Snapshot(), book);
  EXPECT_EQ(Hours(*keeper_, "2026-11-02T12:00:00Z"),
            "team-a nvidia.com/gpu=2.5h team-b nvidia.com/gpu=6h");
  ASSERT_TRUE(ledger_->Release({"team-b", "running", "u3"}));
  EXPECT_EQ(Hours(*keeper_, "2026-11-03T00:00:00Z"),
            "team-a nvidia.com/gpu=2.5h team-b nvidia.com/gpu=6h");
}

// The counter behind gpugate_usage_gpu_seconds_total never goes down: a running pod given a
// release time counts up to it, where its end then puts it.
TEST_F(UsageKeeperTest, AccruedCountsARunningPodToItsReleaseTimeAtMost) {
  Open();
  Run({"team-a", "p", "u"}, 2, "2026-11-02T10:00:00Z");
  const std::pair<std::string, std::string> key{"team-a", "nvidia.com/gpu"};
  EXPECT_EQ(keeper_->Accrued(Sec("2026-11-02T10:15:00Z"))[key], 2 * 900 * kMilli);
  ASSERT_TRUE(
      ledger_->ReleaseAt({"team-a", "p", "u"}, At("2026-11-02T10:30:00Z"), quota::kNoDeadline));
  EXPECT_EQ(keeper_->Accrued(Sec("2026-11-02T11:00:00Z"))[key], 2 * 1800 * kMilli);
  now_ = At("2026-11-02T11:00:00Z");
  EXPECT_TRUE(ledger_->Charges().empty());  // expired at 10:30
  EXPECT_EQ(keeper_->Accrued(Sec("2026-11-02T12:00:00Z"))[key], 2 * 1800 * kMilli);
}

TEST_F(UsageKeeperTest, ACompactedJournalStartsWithTheBook) {
  Open();
  // Enough short pods to make the journal compact (each a charge, a start and a release).
  for (int i = 0; i < 600; ++i) {
    const PodRef pod{"team-a", "p" + std::to_string(i), "u"};
    Run(pod, 1, "2026-11-02T10:00:00Z");
    ASSERT_TRUE(ledger_->Release(pod));  // 1 GPU x 0 s: nothing
  }
  Run({"team-a", "long", "u"}, 1, "2026-11-02T09:00:00Z");
  ASSERT_TRUE(ledger_->Release({"team-a", "long", "u"}));  // 1 GPU x 1 h
  Run({"team-a", "running", "u"}, 1, "2026-11-02T09:00:00Z");
  const std::string book = keeper_->Snapshot();

  std::vector<quota::JournalRecord> records;
  {
    ledger_.reset();
    auto journal = quota::OpenFileJournal(path_, {.sync = false});
    ASSERT_TRUE(journal);
    ASSERT_TRUE((*journal)->Replay([&](const quota::JournalRecord& r) { records.push_back(r); }));
  }
  ASSERT_FALSE(records.empty());
  EXPECT_LT(records.size(), 3u * 600);  // compacted at least once
  EXPECT_EQ(records.front().type, quota::JournalRecord::Type::kBook);

  Open();
  EXPECT_EQ(keeper_->Snapshot(), book);
  EXPECT_EQ(Hours(*keeper_, "2026-11-02T10:00:00Z"), "team-a nvidia.com/gpu=2h");
}

TEST_F(UsageKeeperTest, ABookThatDoesNotDecodeFailsTheOpen) {
  {
    auto journal = quota::OpenFileJournal(path_, {.sync = false});
    ASSERT_TRUE(journal);
    ASSERT_TRUE((*journal)->Replay([](const quota::JournalRecord&) {}));
    quota::JournalRecord book{quota::JournalRecord::Type::kBook, "", "", "", {}};
    book.book = "{not json";
    ASSERT_TRUE((*journal)->Append(book));
  }
  auto keeper = UsageKeeper::Create(UsageConfig{});
  ASSERT_TRUE(keeper);
  auto journal = quota::OpenFileJournal(path_, {.sync = false});
  ASSERT_TRUE(journal);
  quota::Ledger ledger({}, std::move(*journal), {.usage = keeper->get()});
  Status opened = ledger.Open();
  ASSERT_FALSE(opened);
  EXPECT_TRUE(opened.error().message.starts_with("usage book: ")) << opened.error().message;
}

}  // namespace
}  // namespace gpugate::usage
