// Durations in Go's syntax ("5s", "500ms", "1m30s"), as Kubernetes writes them: the API
// server's ?timeout= on a webhook call, and the duration keys of gpugate's config file.
#pragma once

#include <chrono>
#include <string_view>

#include "common/result.h"

namespace gpugate {

// Parses a Go duration ("5s", "500ms", "1m30s", "1.5s", "2h"; units ns, us, µs, ms, s, m, h)
// into microseconds. Zero is allowed ("0s", "0"); negative, empty or unitless non-zero values,
// unknown units and absurd magnitudes (over a day) are errors. The error's message is the
// reason alone ("negative", "missing or unknown unit (ns, us, ms, s, m, h)"); callers say what
// was being parsed.
Result<std::chrono::microseconds> ParseGoDuration(std::string_view text);

// The same with another ceiling than a day, for longer spans (a budget's rolling window of
// "720h"); past `max` the reason is "longer than <max in Go's spelling>".
Result<std::chrono::microseconds> ParseGoDuration(std::string_view text,
                                                  std::chrono::microseconds max);

// `d` in the shortest Go spelling that is exact to the millisecond: "10s", "250ms", "2m",
// "1m30s", "1h", "0s". For messages and logs.
std::string FormatGoDuration(std::chrono::milliseconds d);

}  // namespace gpugate
