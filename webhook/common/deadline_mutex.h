// A mutex whose waiters can give up at a deadline (std::unique_lock::try_lock_until), for code
// that must answer by a caller's deadline however long the holder takes.
//
// Not std::timed_mutex: with a steady-clock deadline libstdc++ locks it with
// pthread_mutex_clocklock, which ThreadSanitizer (GCC 12) does not intercept, so every unlock
// is reported as one of an unlocked mutex. A mutex, a flag and a condition variable say the same
// in terms the sanitizer follows, at the cost of a second lock operation per acquisition.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>

namespace gpugate {

class DeadlineMutex {
 public:
  void lock() {
    std::unique_lock guard(mu_);
    free_.wait(guard, [this] { return !held_; });
    held_ = true;
  }
  bool try_lock() {
    std::lock_guard guard(mu_);
    if (held_) return false;
    held_ = true;
    return true;
  }
  template <typename Clock, typename Duration>
  bool try_lock_until(const std::chrono::time_point<Clock, Duration>& deadline) {
    std::unique_lock guard(mu_);
    if (!free_.wait_until(guard, deadline, [this] { return !held_; })) return false;
    held_ = true;
    return true;
  }
  void unlock() {
    {
      std::lock_guard guard(mu_);
      held_ = false;
    }
    free_.notify_one();
  }

 private:
  std::mutex mu_;
  std::condition_variable free_;
  bool held_ = false;  // guarded by mu_
};

}  // namespace gpugate
