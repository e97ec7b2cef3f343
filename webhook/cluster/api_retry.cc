#include "cluster/api_retry.h"

#include <algorithm>
#include <charconv>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <thread>

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

double UniformJitter() {
  thread_local std::mt19937 engine{std::random_device{}()};
  return std::uniform_real_distribution<double>(0.0, 1.0)(engine);
}

// How long to wait before the next try: the server's Retry-After (0 is taken as absent, so a
// server answering 0 again and again is not hammered), or half the backoff plus a
// random share of the other half (so replicas throttled together do not come back together).
milliseconds WaitBefore(const ApiRetry& policy, const HttpResult& answer, milliseconds backoff) {
  if (auto seconds = RetryAfterSeconds(answer.retryAfter); seconds && *seconds > 0) {
    return std::min(*seconds, policy.maxRetryAfterSeconds) * policy.retryAfterUnit;
  }
  double share = policy.jitter ? policy.jitter() : UniformJitter();
  return backoff / 2 + milliseconds(static_cast<int64_t>(share * (backoff / 2).count()));
}

}  // namespace

ApiRetry::SteadyClock::time_point ApiRetry::Now() const {
  return clock ? clock() : SteadyClock::now();
}

bool IsTransient(const Result<HttpResult>& answer) {
  if (!answer) return false;
  if (answer->status == 429 || answer->status == 503) return true;
  if (answer->status != 500) return false;
  nlohmann::json status = nlohmann::json::parse(answer->body, nullptr, false);
  if (!status.is_object() || !status.contains("message") || !status["message"].is_string()) {
    return false;
  }
  // etcd's refusal of an object too large is not transient: the same write fails again.
  const std::string& message = status["message"].get_ref<const std::string&>();
  return message.find("etcdserver: ") != std::string::npos &&
         message.find("etcdserver: request is too large") == std::string::npos;
}

RetriedAnswer CallWithRetries(const ApiRetry& policy, ApiRetry::SteadyClock::time_point deadline,
                              const std::function<Result<HttpResult>()>& send) {
  RetriedAnswer out{send()};
  milliseconds backoff = policy.firstBackoff;
  while (IsTransient(out.answer)) {
    milliseconds wait = WaitBefore(policy, *out.answer, backoff);
    if (policy.Now() + wait >= deadline) break;
    policy.sleep ? policy.sleep(wait) : std::this_thread::sleep_for(wait);
    backoff = std::min(backoff * 2, policy.maxBackoff);
    out.answer = send();
    ++out.tries;
  }
  return out;
}

}  // namespace gpugate::cluster
