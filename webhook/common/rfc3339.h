// RFC 3339 times as the Kubernetes API writes them (metadata.deletionTimestamp, status.startTime,
// a GPUQuota charge's admission time). One home for reading and writing them: the review codec
// reads a pod's lifecycle times, the cluster ledger stamps its charges.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "common/result.h"

namespace gpugate {

// The wall clock: times other processes read (the API server's, other replicas') are on it,
// unlike SteadyClock (common/deadline.h), which only measures waits within this process.
using WallClock = std::chrono::system_clock;

// RFC 3339 in UTC with milliseconds ("2024-05-01T12:00:00.250Z").
std::string FormatRfc3339(WallClock::time_point t);

// Accepts whole seconds, any number of fractional digits (kept to the millisecond) and numeric
// offsets ("2024-05-01T14:00:00+02:00"). An error names the text. Fields out of range (month
// 13, hour 24) are refused, and so are years before 1900 or after 2191: WallClock counts
// nanoseconds in 64 bits (1678 to 2262), and the room left lets a caller add a grace period of up
// to ten years without overflow.
Result<WallClock::time_point> ParseRfc3339(std::string_view text);

}  // namespace gpugate
