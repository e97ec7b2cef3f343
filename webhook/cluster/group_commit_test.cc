// GroupCommit with a scripted `apply`: which changes share a write, in what order, who applies
// it, and what each waiter is answered when time runs out. No API server: the batch's rules
// against a real record are charge_batch_test.cc, and against the stand-in cluster_ledger_test.cc.
#include "cluster/group_commit.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

#include "support/eventually.h"

namespace gpugate::cluster {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

LedgerOp ChargeOf(const std::string& name) {
  return {.kind = LedgerOp::Kind::kCharge, .pod = {"team-a", name, "uid-" + name}};
}

using gpugate::testing::Eventually;
constexpr std::chrono::seconds kWait{10};

// An `apply` that records each batch ("a,b,c") and its deadline, and holds every batch until
// the test opens the gate; it answers each charge kCharged, or an error for pods named "bad".
class ScriptedApply {
 public:
  GroupCommit::Apply Fn() {
    return [this](std::string_view, std::span<const LedgerOp* const> ops, quota::Deadline d) {
      std::string names;
      for (const LedgerOp* op : ops) names += (names.empty() ? "" : ",") + op->pod.name;
      std::unique_lock lock(mu_);
      batches_.push_back(names);
      deadlines_.push_back(d);
      changed_.notify_all();
      changed_.wait(lock, [&] { return open_ > 0; });
      if (open_ != kAlwaysOpen) --open_;
      std::vector<Result<LedgerOpResult>> out;
      for (const LedgerOp* op : ops) {
        if (op->pod.name == "bad") {
          out.push_back(Fail("bad change"));
        } else {
          out.push_back(LedgerOpResult{});
        }
      }
      return out;
    };
  }
  void Open(int batches = kAlwaysOpen) {
    std::lock_guard lock(mu_);
    open_ = batches;
    changed_.notify_all();
  }
  void WaitForBatches(size_t n) {
    std::unique_lock lock(mu_);
    changed_.wait(lock, [&] { return batches_.size() >= n; });
  }
  std::vector<std::string> batches() {
    std::lock_guard lock(mu_);
    return batches_;
  }
  std::vector<quota::Deadline> deadlines() {
    std::lock_guard lock(mu_);
    return deadlines_;
  }

  static constexpr int kAlwaysOpen = 1 << 30;

 private:
  std::mutex mu_;
  std::condition_variable changed_;
  int open_ = 0;  // batches allowed to finish
  std::vector<std::string> batches_;
  std::vector<quota::Deadline> deadlines_;
};

// "ok" or the error's message.
std::string Answer(const Result<LedgerOpResult>& r) { return r ? "ok" : r.error().message; }

class GroupCommitTest : public ::testing::Test {
 protected:
  // Submits a charge of `name` on a thread of its own; its answer lands in answers_[name].
  void Submit(GroupCommit& commits, const std::string& name,
              quota::Deadline deadline = steady_clock::now() + std::chrono::seconds(30)) {
    threads_.emplace_back([this, &commits, name, deadline] {
      std::string answer = Answer(commits.Submit("team-a", ChargeOf(name), deadline));
      std::lock_guard lock(mu_);
      answers_[name] = answer;
    });
  }
  void Join() {
    for (std::thread& t : threads_) t.join();
    threads_.clear();
  }
  std::string AnswerOf(const std::string& name) {
    std::lock_guard lock(mu_);
    return answers_[name];
  }

  ScriptedApply apply_;
  std::vector<std::thread> threads_;
  std::mutex mu_;
  std::map<std::string, std::string> answers_;
};

TEST_F(GroupCommitTest, ChangesQueuedBehindAWriteShareTheNextOneInArrivalOrder) {
  GroupCommit commits(apply_.Fn());
  Submit(commits, "a");
  apply_.WaitForBatches(1);  // a's write is in flight
  for (const char* name : {"b", "c", "d"}) {
    Submit(commits, name);
    ASSERT_TRUE(Eventually(
        [&] { return commits.stats().queued == static_cast<size_t>(name[0] - 'a'); }, kWait));
  }
  apply_.Open();
  Join();
  EXPECT_EQ(apply_.batches(), (std::vector<std::string>{"a", "b,c,d"}));
  for (const char* name : {"a", "b", "c", "d"}) EXPECT_EQ(AnswerOf(name), "ok") << name;
  GroupCommit::Stats stats = commits.stats();
  EXPECT_EQ(stats.batches, 2u);
  EXPECT_EQ(stats.ops, 4u);
  EXPECT_EQ(stats.largest, 3u);
}

TEST_F(GroupCommitTest, ABatchIsAtMostMaxBatchChanges) {
  GroupCommit commits(apply_.Fn(), /*maxBatch=*/2);
  Submit(commits, "a");
  apply_.WaitForBatches(1);
  for (const char* name : {"b", "c", "d", "e", "f"}) {
    Submit(commits, name);
    ASSERT_TRUE(Eventually(
        [&] { return commits.stats().queued == static_cast<size_t>(name[0] - 'a'); }, kWait));
  }
  apply_.Open();
  Join();
  EXPECT_EQ(apply_.batches(), (std::vector<std::string>{"a", "b,c", "d,e", "f"}));
}

// One change's error is that change's alone; the others in its write are answered as applied.
TEST_F(GroupCommitTest, AnErrorForOneChangeFailsOnlyThatChange) {
  GroupCommit commits(apply_.Fn());
  Submit(commits, "a");
  apply_.WaitForBatches(1);
  Submit(commits, "b");
  ASSERT_TRUE(Eventually([&] { return commits.stats().queued == 1; }, kWait));
  Submit(commits, "bad");
  ASSERT_TRUE(Eventually([&] { return commits.stats().queued == 2; }, kWait));
  Submit(commits, "c");
  ASSERT_TRUE(Eventually([&] { return commits.stats().queued == 3; }, kWait));
  apply_.Open();
  Join();
  EXPECT_EQ(apply_.batches().back(), "b,bad,c");
  EXPECT_EQ(AnswerOf("b"), "ok");
  EXPECT_EQ(AnswerOf("bad"), "bad change");
  EXPECT_EQ(AnswerOf("c"), "ok");
}

// The write is bounded by the latest deadline among its changes, so no change's time is cut
// short by another's; each change is still answered by its own deadline.
TEST_F(GroupCommitTest, AWriteRunsToItsLatestDeadlineAndEachChangeLeavesAtItsOwn) {
  GroupCommit commits(apply_.Fn());
  auto now = steady_clock::now();
  Submit(commits, "a");
  apply_.WaitForBatches(1);
  Submit(commits, "short", now + milliseconds(200));
  ASSERT_TRUE(Eventually([&] { return commits.stats().queued == 1; }, kWait));
  Submit(commits, "long", now + std::chrono::seconds(60));
  ASSERT_TRUE(Eventually([&] { return commits.stats().queued == 2; }, kWait));
  apply_.Open(1);  // a's write ends; short's and long's begins and is held
  apply_.WaitForBatches(2);
  EXPECT_EQ(apply_.batches()[1], "short,long");
  EXPECT_EQ(apply_.deadlines()[1], now + std::chrono::seconds(60));
  ASSERT_TRUE(Eventually([&] { return !AnswerOf("short").empty(); }, kWait));  // at its deadline
  EXPECT_EQ(AnswerOf("short"),
            "no time left: the write of team-a's GPUQuota carrying this change was still waiting "
            "on the Kubernetes API");
  EXPECT_EQ(AnswerOf("long"), "");  // still waiting for the write
  apply_.Open();
  Join();
  EXPECT_EQ(AnswerOf("long"), "ok");
}

TEST_F(GroupCommitTest, AChangeWhoseDeadlinePassesInTheQueueLeavesItAndIsNeverApplied) {
  GroupCommit commits(apply_.Fn());
  Submit(commits, "a");
  apply_.WaitForBatches(1);
  Submit(commits, "late", steady_clock::now() + milliseconds(100));
  ASSERT_TRUE(Eventually([&] { return !AnswerOf("late").empty(); }, kWait));
  EXPECT_EQ(AnswerOf("late"),
            "no time left: waited behind this replica's other changes to team-a's GPUQuota, which "
            "were waiting on the Kubernetes API");
  EXPECT_EQ(commits.stats().queued, 0u);
  Submit(commits, "b");
  ASSERT_TRUE(Eventually([&] { return commits.stats().queued == 1; }, kWait));
  apply_.Open();
  Join();
  EXPECT_EQ(apply_.batches(), (std::vector<std::string>{"a", "b"}));
}

TEST_F(GroupCommitTest, AnApplyThatThrowsFailsItsChangesAndTheNextBatchGoesOn) {
  std::atomic<int> calls{0};
  GroupCommit commits([&](std::string_view, std::span<const LedgerOp* const> ops, quota::Deadline) {
    if (calls++ == 0) throw std::runtime_error("out of memory");
    return std::vector<Result<LedgerOpResult>>(ops.size(), LedgerOpResult{});
  });
  EXPECT_EQ(
      Answer(commits.Submit("team-a", ChargeOf("a"), steady_clock::now() + milliseconds(500))),
      "applying the changes failed: out of memory");
  EXPECT_EQ(
      Answer(commits.Submit("team-a", ChargeOf("b"), steady_clock::now() + milliseconds(500))),
      "ok");
}

// Namespaces do not wait for each other: team-b's change is written while team-a's is held.
TEST_F(GroupCommitTest, NamespacesAreWrittenIndependently) {
  std::mutex mu;
  std::condition_variable cv;
  bool release = false;
  GroupCommit commits(
      [&](std::string_view ns, std::span<const LedgerOp* const> ops, quota::Deadline) {
        if (ns == "team-a") {
          std::unique_lock lock(mu);
          cv.wait(lock, [&] { return release; });
        }
        return std::vector<Result<LedgerOpResult>>(ops.size(), LedgerOpResult{});
      });
  auto deadline = steady_clock::now() + std::chrono::seconds(30);
  std::thread held([&] { (void)commits.Submit("team-a", ChargeOf("a"), deadline); });
  LedgerOp b = ChargeOf("b");
  b.pod.ns = "team-b";
  EXPECT_EQ(Answer(commits.Submit("team-b", b, deadline)), "ok");
  {
    std::lock_guard lock(mu);
    release = true;
  }
  cv.notify_all();
  held.join();
}

}  // namespace
}  // namespace gpugate::cluster
