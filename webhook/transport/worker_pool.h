// Threads for tasks that may block. EventServer's serving threads never wait, so an answer that
// may (a quota charge waiting on the API server or a journal fsync: Response::blocking) is
// finished here (Tuning::blockingWorkers). The pool grows instead of queueing: an idle worker
// takes a task, else a new worker starts, up to a hard maximum; only there do tasks queue, and
// workers above the core retire once idle. A fixed pool would make one slow charge delay
// unrelated ones behind it. (The load benchmarks' cpp-httplib floor also uses one as that
// library's task queue: bench/load/httplib_tuning.h.)
//
// Workers run on small stacks (pthread attributes; std::thread cannot set a stack size) and
// report how much of them was ever touched, so the stack size is checked, not guessed.
#pragma once

#include <pthread.h>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <list>
#include <mutex>

namespace gpugate::transport {

struct WorkerPoolOptions {
  size_t coreThreads = 8;                        // started up front, never retire
  size_t maxThreads = 512;                       // hard cap; beyond it tasks wait in a FIFO queue
  std::chrono::milliseconds idleRetire{30'000};  // a worker above the core idle this long exits
  size_t stackBytes = 256 << 10;  // per worker, guard page excluded; see docs/decisions.md
};

struct WorkerStats {
  size_t threads = 0;         // workers alive
  size_t busy = 0;            // workers running a task
  size_t waiting = 0;         // tasks queued with no worker free (only at maxThreads)
  size_t peakThreads = 0;     // most workers alive at once
  uint64_t tasks = 0;         // tasks accepted by Enqueue
  uint64_t delayed = 0;       // tasks that had to wait because the pool was at maxThreads
  size_t stackBytes = 0;      // each worker's usable stack
  size_t stackPeakBytes = 0;  // most of one worker's stack ever resident (page granular)
};

// Thread-safe. Enqueue and Stats may be called from any thread; Shutdown from one thread, once
// nothing enqueues any more (EventServer::Run calls it after its serving threads have returned).
// Workers inherit the signal mask of the thread that constructs the pool or calls Enqueue, so
// block signals before either.
class WorkerPool {
 public:
  explicit WorkerPool(WorkerPoolOptions options);
  ~WorkerPool();  // Shutdown()
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Runs `task` on an idle worker, else on a new one, else (at maxThreads) on the first worker
  // that frees up; the first time that happens it logs a warning. Must not be called after
  // Shutdown (aborts).
  void Enqueue(std::function<void()> task);
  // Runs the tasks still queued, lets running ones finish, then joins every worker. Idempotent.
  void Shutdown();
  WorkerStats Stats() const;

 private:
  struct Worker {
    pthread_t thread{};
    uintptr_t stackLow = 0;  // usable stack [stackLow, stackLow + stackSize); 0 until started
    size_t stackSize = 0;
  };
  using WorkerList = std::list<Worker>;

  struct StartArg;
  static void* ThreadMain(void* arg);
  void Run(WorkerList::iterator self);
  // Starts one worker; false when the system refuses a thread. Requires mu_ held.
  bool StartWorkerLocked();
  // Joins workers that have retired. Requires mu_ not held.
  void JoinRetired();
  size_t StackPeakLocked() const;

  const WorkerPoolOptions options_;
  mutable std::mutex mu_;
  std::condition_variable workAvailable_;
  std::condition_variable allExited_;
  std::deque<std::function<void()>> tasks_;  // guarded by mu_
  WorkerList live_;                          // guarded by mu_; each worker owns its node
  WorkerList retired_;                       // guarded by mu_; exited, not yet joined
  size_t idle_ = 0;              // workers waiting for a task or about to take one; guarded by mu_
  size_t busy_ = 0;              // guarded by mu_
  size_t peakThreads_ = 0;       // guarded by mu_
  uint64_t taskCount_ = 0;       // guarded by mu_
  uint64_t delayed_ = 0;         // guarded by mu_
  size_t retiredStackPeak_ = 0;  // guarded by mu_; peak of workers that have exited
  bool warned_ = false;          // guarded by mu_
  bool stopping_ = false;        // guarded by mu_
  std::once_flag joined_;
};

}  // namespace gpugate::transport
