// The one spelling of a deadline across the layers: a point in steady time, and kNoDeadline for
// "none". Steady, not system, time: a deadline counts down a caller's timeout, which a clock
// step must not shorten or stretch. kNoDeadline is the latest point there is, so `now >= d` and
// `std::min(a, b)` need no special case for it.
#pragma once

#include <chrono>

namespace gpugate {

using SteadyClock = std::chrono::steady_clock;
using Deadline = SteadyClock::time_point;
inline constexpr Deadline kNoDeadline = Deadline::max();

}  // namespace gpugate
