// Test support (tests only; production code never includes tests/support): a bounded wait for an
// outcome that arrives asynchronously (a watch event, a worker's count, a reloaded certificate).
#pragma once

#include <chrono>
#include <thread>

namespace gpugate::testing {

// How often Eventually asks again: short, so a test waits little past the moment its outcome
// holds, and long enough that the polling does not compete with the threads it waits for.
inline constexpr std::chrono::milliseconds kPollInterval{5};

// Calls `done` until it returns true or `timeout` has passed, sleeping kPollInterval between
// calls, and returns its last answer: true as soon as it holds, false if it never did. `done`
// runs on the calling thread, at least once, and once more after the deadline (so an outcome
// that lands during the last sleep still counts). Callers keep their own ASSERT/EXPECT, so the
// failure names what was awaited; every caller states its timeout.
template <typename Done>
bool Eventually(Done&& done, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(kPollInterval);
  }
  return static_cast<bool>(done());
}

}  // namespace gpugate::testing
