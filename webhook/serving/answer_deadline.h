// The ?timeout= rule: the API server says how long it waits for a review's answer (`?timeout=5s`,
// the webhook's timeoutSeconds), and gpugate answers before then, even if only to refuse for want
// of time. A refusal that arrives in time names its cause; one that arrives late is replaced by
// the API server's "context deadline exceeded".
#pragma once

#include <chrono>

#include "common/deadline.h"

namespace gpugate::serving {

// When a review that arrived at `start` with the caller's `timeout` must have its answer made:
// the timeout less a tenth of it (at least 0.1 s, at most 1 s) for encoding and sending it.
Deadline AnswerDeadline(Deadline start, std::chrono::nanoseconds timeout);

}  // namespace gpugate::serving
