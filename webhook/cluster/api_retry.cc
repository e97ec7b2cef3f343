#include "cluster/api_retry.h"

#include <algorithm>
#include <charconv>
#include <optional>
#include <thread>

#include "cluster/kube_object.h"

namespace gpugate::cluster {
namespace {

using std::chrono::milliseconds;

// Retry-After as delta-seconds; an HTTP-date (the API server never sends one) is ignored.
std::optional<int> RetryAfterSeconds(const std::string& header) {
  int seconds = 0;
  auto [end, ec] = std::from_chars(header.data(), header.data() + header.size(), seconds);
  if (header.empty() || ec != std::errc() || end != header.data() + header.size() || seconds < 0) {
    return std::nullopt;
  }
  return seconds;
}

// The server's Retry-After, capped; nullopt when absent or 0 (taken as absent, so a server
// answering 0 again and again is not hammered): then the jittered backoff decides.
std::optional<milliseconds> ServerWait(const ApiRetry& policy, const HttpResult& answer) {
  if (auto seconds = RetryAfterSeconds(answer.retryAfter); seconds && *seconds > 0) {
    return std::min(*seconds, policy.maxRetryAfterSeconds) * policy.retryAfterUnit;
  }
  return std::nullopt;
}

}  // namespace

ApiRetry::SteadyClock::time_point ApiRetry::Now() const {
  return clock ? clock() : SteadyClock::now();
}

void ApiRetry::Sleep(std::chrono::milliseconds wait) const {
  sleep ? sleep(wait) : std::this_thread::sleep_for(wait);
}

bool IsTransient(const Result<HttpResult>& answer) {
  if (!answer) return false;
  if (answer->status == 429 || answer->status == 503) return true;
  if (answer->status != 500) return false;
  std::optional<std::string> message = StatusMessageOf(answer->body);
  if (!message) return false;
  // etcd's refusal of an object too large is not transient: the same write fails again.
  return message->find("etcdserver: ") != std::string::npos &&
         message->find("etcdserver: request is too large") == std::string::npos;
}

RetriedAnswer CallWithRetries(const ApiRetry& policy, ApiRetry::SteadyClock::time_point deadline,
                              const std::function<Result<HttpResult>()>& send) {
  RetriedAnswer out{send()};
  Backoff backoff({.initial = policy.firstBackoff,
                   .max = policy.maxBackoff,
                   .jitter = BackoffPolicy::Jitter::kEqual},
                  policy.jitter);
  while (IsTransient(out.answer)) {
    milliseconds wait = backoff.Next(ServerWait(policy, *out.answer));
    if (policy.Now() + wait >= deadline) break;
    policy.Sleep(wait);
    out.answer = send();
    ++out.tries;
  }
  return out;
}

}  // namespace gpugate::cluster
