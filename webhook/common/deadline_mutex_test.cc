#include "common/deadline_mutex.h"

#include <gtest/gtest.h>

#include <future>
#include <thread>

namespace gpugate {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

TEST(DeadlineMutex, AWaiterGivesUpAtItsDeadlineAndGetsTheLockOnceFreed) {
  DeadlineMutex mu;
  std::unique_lock holder(mu);
  auto gaveUp = std::async(std::launch::async, [&] {
    std::unique_lock waiter(mu, std::defer_lock);
    return !waiter.try_lock_until(Clock::now() + 20ms);
  });
  EXPECT_TRUE(gaveUp.get());
  EXPECT_FALSE(mu.try_lock());

  std::promise<void> waiting;
  auto got = std::async(std::launch::async, [&] {
    std::unique_lock waiter(mu, std::defer_lock);
    waiting.set_value();
    return waiter.try_lock_until(Clock::now() + 60s);
  });
  waiting.get_future().wait();
  holder.unlock();
  EXPECT_TRUE(got.get());
  EXPECT_TRUE(mu.try_lock());  // the waiter's lock ended with its scope
  mu.unlock();
}

TEST(DeadlineMutex, APassedDeadlineStillTakesAFreeLock) {
  DeadlineMutex mu;
  std::unique_lock lock(mu, std::defer_lock);
  EXPECT_TRUE(lock.try_lock_until(Clock::now() - 1s));
}

}  // namespace
}  // namespace gpugate
