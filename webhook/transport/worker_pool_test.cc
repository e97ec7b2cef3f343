#include "transport/worker_pool.h"

#include <alloca.h>
#include <gtest/gtest.h>
#include <pthread.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>

#include "support/eventually.h"

namespace gpugate::transport {
namespace {

using namespace std::chrono_literals;

// Holds tasks until Open(); counts how many are inside.
class Gate {
 public:
  void Pass() {
    std::unique_lock lock(mu_);
    ++inside_;
    changed_.notify_all();
    changed_.wait(lock, [&] { return open_; });
    --inside_;
  }
  void Open() {
    std::lock_guard lock(mu_);
    open_ = true;
    changed_.notify_all();
  }
  // Waits (up to 10 s) until `n` tasks are inside; false on timeout.
  bool WaitInside(int n) {
    std::unique_lock lock(mu_);
    return changed_.wait_for(lock, 10s, [&] { return inside_ == n; });
  }

 private:
  std::mutex mu_;
  std::condition_variable changed_;
  int inside_ = 0;
  bool open_ = false;
};

// Polls `pool` until `pred(stats)` holds (up to 10 s).
template <typename Pred>
bool WaitForStats(const WorkerPool& pool, Pred pred) {
  return gpugate::testing::Eventually([&] { return pred(pool.Stats()); }, 10s);
}

TEST(WorkerPool, GrowsPastTheCoreSoNoTaskWaitsForABusyOne) {
  Gate gate;  // outlives the pool, whose threads are inside it until joined
  WorkerPool pool({.coreThreads = 2, .maxThreads = 64});
  for (int i = 0; i < 40; ++i) pool.Enqueue([&] { gate.Pass(); });
  ASSERT_TRUE(gate.WaitInside(40));  // all 40 running at once on 2 core threads + 38 more
  WorkerStats s = pool.Stats();
  EXPECT_EQ(s.threads, 40u);
  EXPECT_EQ(s.busy, 40u);
  EXPECT_EQ(s.waiting, 0u);
  EXPECT_EQ(s.tasks, 40u);
  EXPECT_EQ(s.delayed, 0u);
  gate.Open();
}

TEST(WorkerPool, AtTheMaximumTasksQueueAndRunWhenAWorkerFrees) {
  Gate gate;  // outlives the pool, whose threads are inside it until joined
  std::atomic<int> done{0};
  WorkerPool pool({.coreThreads = 1, .maxThreads = 3});
  for (int i = 0; i < 5; ++i) pool.Enqueue([&] { gate.Pass(), ++done; });
  ASSERT_TRUE(gate.WaitInside(3));
  WorkerStats s = pool.Stats();
  EXPECT_EQ(s.threads, 3u);
  EXPECT_EQ(s.waiting, 2u);
  EXPECT_EQ(s.delayed, 2u);
  gate.Open();
  ASSERT_TRUE(WaitForStats(pool, [](const WorkerStats& s) { return s.busy == 0; }));
  EXPECT_EQ(done, 5);
  EXPECT_EQ(pool.Stats().peakThreads, 3u);
}

TEST(WorkerPool, IdleWorkersAboveTheCoreRetire) {
  Gate gate;  // outlives the pool, whose threads are inside it until joined
  WorkerPool pool({.coreThreads = 2, .maxThreads = 16, .idleRetire = 20ms});
  for (int i = 0; i < 10; ++i) pool.Enqueue([&] { gate.Pass(); });
  ASSERT_TRUE(gate.WaitInside(10));
  gate.Open();
  EXPECT_TRUE(WaitForStats(pool, [](const WorkerStats& s) { return s.threads == 2; }));
  // Retired workers are joined on the next Enqueue; the pool keeps working.
  std::atomic<bool> ran{false};
  pool.Enqueue([&] { ran = true; });
  EXPECT_TRUE(WaitForStats(pool, [&](const WorkerStats&) { return ran.load(); }));
}

TEST(WorkerPool, ShutdownRunsQueuedTasksThenJoins) {
  std::atomic<int> done{0};
  {
    Gate gate;  // outlives the pool, whose threads are inside it until joined
    WorkerPool pool({.coreThreads = 1, .maxThreads = 1});
    for (int i = 0; i < 4; ++i) pool.Enqueue([&] { gate.Pass(), ++done; });
    ASSERT_TRUE(gate.WaitInside(1));
    gate.Open();
    pool.Shutdown();
    EXPECT_EQ(done, 4);
    EXPECT_EQ(pool.Stats().threads, 0u);
    pool.Shutdown();  // idempotent; the destructor calls it again
  }
  EXPECT_EQ(done, 4);
}

// Touches `bytes` of stack below the caller's frame.
[[gnu::noinline]] void TouchStack(size_t bytes) {
  char* buf = static_cast<char*>(alloca(bytes));
  std::memset(buf, 1, bytes);
  asm volatile("" : : "r"(buf) : "memory");  // keep the writes
}

TEST(WorkerPool, WorkersRunOnTheConfiguredStackAndReportTheirPeak) {
  WorkerPool pool({.coreThreads = 1, .maxThreads = 1, .stackBytes = 256 << 10});
  std::atomic<size_t> stackSize{0};
  std::atomic<bool> ran{false};
  pool.Enqueue([&] {
    pthread_attr_t attr;
    pthread_getattr_np(pthread_self(), &attr);
    size_t size = 0;
    pthread_attr_getstacksize(&attr, &size);
    pthread_attr_destroy(&attr);
    stackSize = size;
    ran = true;
  });
  ASSERT_TRUE(WaitForStats(pool, [&](const WorkerStats&) { return ran.load(); }));
  EXPECT_EQ(stackSize, 256u << 10);
  size_t idlePeak = pool.Stats().stackPeakBytes;
  EXPECT_GT(idlePeak, 0u);
  EXPECT_LT(idlePeak, 64u << 10);

  ran = false;
  pool.Enqueue([&] {
    TouchStack(160 << 10);
    ran = true;
  });
  ASSERT_TRUE(WaitForStats(pool, [&](const WorkerStats&) { return ran.load(); }));
  WorkerStats s = pool.Stats();
  EXPECT_EQ(s.stackBytes, 256u << 10);
  EXPECT_GE(s.stackPeakBytes, 160u << 10);
  EXPECT_LE(s.stackPeakBytes, 256u << 10);
}

}  // namespace
}  // namespace gpugate::transport
