#include "transport/worker_pool.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "transport/log.h"

namespace gpugate::transport {
namespace {

// Bytes of [low, low + size) backed by memory: the pages a thread has touched. A fresh stack
// mapping is untouched, and glibc releases (MADV_DONTNEED) the deep part of a stack it caches
// for reuse, so this is the thread's high-water mark, page granular, never an underestimate.
size_t ResidentBytes(uintptr_t low, size_t size) {
  if (low == 0 || size == 0) return 0;
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> pages((size + page - 1) / page);
  if (mincore(reinterpret_cast<void*>(low), size, pages.data()) != 0) return 0;
  size_t resident = 0;
  for (unsigned char p : pages) resident += p & 1;
  return resident * page;
}

}  // namespace

struct WorkerPool::StartArg {
  WorkerPool* pool;
  WorkerList::iterator self;
};

WorkerPool::WorkerPool(WorkerPoolOptions options) : options_(options) {
  std::lock_guard lock(mu_);
  for (size_t i = 0; i < options_.coreThreads && i < options_.maxThreads; ++i) {
    if (!StartWorkerLocked()) break;  // logged; Enqueue tries again on demand
  }
}

WorkerPool::~WorkerPool() { Shutdown(); }

void WorkerPool::Enqueue(std::function<void()> task) {
  JoinRetired();
  bool warn = false;
  size_t threads = 0;
  {
    std::lock_guard lock(mu_);
    if (stopping_) {
      std::fputs("gpugate: WorkerPool::Enqueue after Shutdown\n", stderr);
      std::abort();
    }
    tasks_.push_back(std::move(task));
    ++taskCount_;
    if (tasks_.size() > idle_ && !StartWorkerLocked()) {
      ++delayed_;
      warn = !warned_;
      warned_ = true;
      threads = live_.size();
    }
  }
  workAvailable_.notify_one();
  if (warn) {
    LogLine("worker pool full")
        .Int("threads", static_cast<int64_t>(threads))
        .Int("maxThreads", static_cast<int64_t>(options_.maxThreads))
        .Str("effect", "tasks wait until a worker is free; logged once")
        .Warn();
  }
}

bool WorkerPool::StartWorkerLocked() {
  if (live_.size() >= options_.maxThreads) return false;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  int rc = pthread_attr_setstacksize(&attr, options_.stackBytes);
  auto self = live_.emplace(live_.end());
  auto arg = std::make_unique<StartArg>(StartArg{this, self});
  // The new thread takes mu_ before touching its node, and we hold mu_: no race on `self`.
  if (rc == 0) rc = pthread_create(&self->thread, &attr, &ThreadMain, arg.get());
  pthread_attr_destroy(&attr);
  if (rc != 0) {
    live_.erase(self);
    if (!warned_) {
      // Logged once (shares the flag with "worker pool full", its usual consequence).
      warned_ = true;
      LogLine("cannot start worker thread")
          .Str("error", std::strerror(rc))
          .Int("threads", static_cast<int64_t>(live_.size()))
          .Error();
    }
    return false;
  }
  arg.release();  // owned by the thread now
  ++idle_;        // it takes a task as soon as it runs
  peakThreads_ = std::max(peakThreads_, live_.size());
  return true;
}

void* WorkerPool::ThreadMain(void* p) {
  std::unique_ptr<StartArg> arg(static_cast<StartArg*>(p));
  pthread_setname_np(pthread_self(), "gpugate-worker");  // shows in top -H and gdb
  arg->pool->Run(arg->self);
  return nullptr;
}

void WorkerPool::Run(WorkerList::iterator self) {
  void* low = nullptr;
  size_t size = 0;
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    pthread_attr_getstack(&attr, &low, &size);
    pthread_attr_destroy(&attr);
  }
  std::unique_lock lock(mu_);
  self->stackLow = reinterpret_cast<uintptr_t>(low);
  self->stackSize = size;
  for (;;) {
    bool retire = false;
    auto retireAt = std::chrono::steady_clock::now() + options_.idleRetire;
    while (tasks_.empty() && !stopping_) {
      if (workAvailable_.wait_until(lock, retireAt) != std::cv_status::timeout) continue;
      if (tasks_.empty() && !stopping_ && live_.size() > options_.coreThreads) {
        retire = true;
        break;
      }
      retireAt = std::chrono::steady_clock::now() + options_.idleRetire;
    }
    if (retire || tasks_.empty()) break;  // idle too long, or stopping with nothing left
    std::function<void()> task = std::move(tasks_.front());
    tasks_.pop_front();
    --idle_;
    ++busy_;
    lock.unlock();
    task();
    task = nullptr;  // release what it captured before taking the lock again
    lock.lock();
    --busy_;
    ++idle_;
  }
  --idle_;
  retiredStackPeak_ = std::max(retiredStackPeak_, ResidentBytes(self->stackLow, self->stackSize));
  retired_.splice(retired_.end(), live_, self);
  if (live_.empty()) allExited_.notify_all();
}

void WorkerPool::JoinRetired() {
  WorkerList done;
  {
    std::lock_guard lock(mu_);
    done.splice(done.end(), retired_);
  }
  for (const Worker& w : done) pthread_join(w.thread, nullptr);
}

void WorkerPool::Shutdown() {
  std::call_once(joined_, [this] {
    {
      std::unique_lock lock(mu_);
      stopping_ = true;
      workAvailable_.notify_all();
      allExited_.wait(lock, [this] { return live_.empty(); });
    }
    JoinRetired();
  });
}

size_t WorkerPool::StackPeakLocked() const {
  size_t peak = retiredStackPeak_;
  for (const Worker& w : live_) peak = std::max(peak, ResidentBytes(w.stackLow, w.stackSize));
  return peak;
}

WorkerStats WorkerPool::Stats() const {
  std::lock_guard lock(mu_);
  return {.threads = live_.size(),
          .busy = busy_,
          .waiting = tasks_.size() > idle_ ? tasks_.size() - idle_ : 0,
          .peakThreads = peakThreads_,
          .tasks = taskCount_,
          .delayed = delayed_,
          .stackBytes = options_.stackBytes,
          .stackPeakBytes = StackPeakLocked()};
}

}  // namespace gpugate::transport
