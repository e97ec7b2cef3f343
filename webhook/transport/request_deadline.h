// The API server's deadline for one review. kube-apiserver calls a webhook as
// POST /validate?timeout=5s, where the value is the webhook's timeoutSeconds in Go's duration
// syntax; once it passes, the API server has given up and the review's answer is never read.
#pragma once

#include <chrono>
#include <string_view>

#include "common/result.h"

namespace gpugate::transport {

// Parses a Go duration ("5s", "500ms", "1m30s", "1.5s", "2h"; units ns, us, µs, ms, s, m, h)
// into microseconds. Zero is allowed ("0s", "0"); negative, empty or unitless non-zero values,
// unknown units and absurd magnitudes (over a day) are errors naming what is wrong.
Result<std::chrono::microseconds> ParseGoDuration(std::string_view text);

}  // namespace gpugate::transport
