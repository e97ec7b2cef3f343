// Jittered exponential backoff as a value: the one way the cluster layer spaces its tries (the
// informers' relists and re-watches, API calls retried on a transient answer, guarded writes
// redone after a conflict). Each Next() is the wait before the next try; the step then doubles,
// up to `max`; Reset() after progress starts again from `initial`. A server's Retry-After, when
// given, is the wait instead (it still uses up a step).
//
// Jitter spreads replicas that failed together, so they do not come back together:
//   kEqual: half the step, plus a random share of the other half (never under half: no hot loop);
//   kFull:  a random share of the whole step (for waits short enough that a floor buys nothing).
//
// A value: not thread-safe; each retry loop owns one.
#pragma once

#include <chrono>
#include <functional>
#include <optional>

namespace gpugate::cluster {

struct BackoffPolicy {
  enum class Jitter { kEqual, kFull };
  std::chrono::milliseconds initial{200};
  std::chrono::milliseconds max{10000};
  Jitter jitter = Jitter::kEqual;
};

class Backoff {
 public:
  // `random`: a uniform share in [0, 1) for the jitter; null: a thread-local generator.
  explicit Backoff(BackoffPolicy policy, std::function<double()> random = nullptr);

  // The wait before the next try: `serverSays` (a Retry-After) when given, else the jittered
  // step. Either way the step doubles for the try after, up to policy.max.
  std::chrono::milliseconds Next(std::optional<std::chrono::milliseconds> serverSays = {});
  // Progress was made: the next wait starts from policy.initial again.
  void Reset() { step_ = policy_.initial; }

 private:
  BackoffPolicy policy_;
  std::function<double()> random_;
  std::chrono::milliseconds step_;
};

// A uniform share in [0, 1) from a thread-local generator seeded once per thread.
double UniformShare();

}  // namespace gpugate::cluster
