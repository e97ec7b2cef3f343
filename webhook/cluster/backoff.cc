#include "cluster/backoff.h"

#include <algorithm>
#include <cstdint>
#include <random>

namespace gpugate::cluster {

double UniformShare() {
  thread_local std::mt19937 engine{std::random_device{}()};
  return std::uniform_real_distribution<double>(0.0, 1.0)(engine);
}

Backoff::Backoff(BackoffPolicy policy, std::function<double()> random)
    : policy_(policy), random_(std::move(random)), step_(policy.initial) {}

std::chrono::milliseconds Backoff::Next(std::optional<std::chrono::milliseconds> serverSays) {
  using std::chrono::milliseconds;
  const milliseconds step = step_;
  step_ = std::min(step_ * 2, policy_.max);
  if (serverSays) return *serverSays;
  const double share = random_ ? random_() : UniformShare();
  if (policy_.jitter == BackoffPolicy::Jitter::kFull) {
    return milliseconds(static_cast<int64_t>(share * step.count()));
  }
  return step / 2 + milliseconds(static_cast<int64_t>(share * (step / 2).count()));
}

}  // namespace gpugate::cluster
