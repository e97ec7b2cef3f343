// Retrying the Kubernetes API's transient answers, as client-go does: a 429 (API Priority and
// Fairness throttling), a 503 (an API server shutting down gracefully, or overloaded) and a 500
// from etcd ("etcdserver: leader changed", "etcdserver: request timed out"; not "etcdserver:
// request is too large", which the same write gets again) are tried again after an exponential
// backoff with jitter (backoff.h, kEqual), or after the answer's Retry-After (whole seconds,
// capped), until a deadline the caller passes. Every other answer, and no answer at all (the
// client's own error), is returned at once. docs/cluster.md, "Throttling and transient errors".
//
// Only safe for requests the API makes idempotent: GETs, and writes guarded by a resourceVersion
// or a name (a PUT or POST that did land before a 503 comes back as 409 on the next try).
#pragma once

#include <chrono>
#include <functional>

#include "cluster/api_client.h"
#include "cluster/backoff.h"

namespace gpugate::cluster {

struct ApiRetry {
  using SteadyClock = std::chrono::steady_clock;
  // The budget of one charge or release when its caller gives no deadline of its own (a review
  // without ?timeout=); with one, the review's deadline bounds it (ClusterLedger::Reserve).
  std::chrono::milliseconds budget{4000};
  std::chrono::milliseconds firstBackoff{100};  // doubled after each try...
  std::chrono::milliseconds maxBackoff{1000};   // ...up to this
  int maxRetryAfterSeconds = 2;                 // a larger Retry-After is taken as this
  // What one second of Retry-After lasts: a second. Tests shorten it so they take milliseconds.
  std::chrono::milliseconds retryAfterUnit{1000};
  // Injected for tests; null: steady_clock::now, std::this_thread::sleep_for, a uniform [0, 1).
  std::function<SteadyClock::time_point()> clock;
  std::function<void(std::chrono::milliseconds)> sleep;
  std::function<double()> jitter;

  SteadyClock::time_point Now() const;
  void Sleep(std::chrono::milliseconds wait) const;
};

// Whether `answer` is one of the transient answers above.
bool IsTransient(const Result<HttpResult>& answer);

struct RetriedAnswer {
  Result<HttpResult> answer;  // the last one
  int tries = 1;
};

// Calls `send` until its answer is not transient, or until the wait before another try would
// end at or past `deadline`; then returns the last answer.
RetriedAnswer CallWithRetries(const ApiRetry& policy, ApiRetry::SteadyClock::time_point deadline,
                              const std::function<Result<HttpResult>()>& send);

}  // namespace gpugate::cluster
