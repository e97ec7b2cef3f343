#include "quota/release_edge.h"

#include <algorithm>

namespace gpugate::quota {
namespace {

using std::chrono::seconds;

constexpr int64_t kDefaultGraceSeconds = 30;  // the API server's default for the pod spec field
// Longer grace periods (3,660 days: ten years and a week) are read as this: any longer and the
// times below could overflow WallClock's 64-bit nanoseconds (common/rfc3339.h keeps parsed times
// clear of it by as much).
constexpr int64_t kMaxGraceSeconds = int64_t{10} * 366 * 24 * 3600;

int64_t Bounded(int64_t grace) { return std::min(grace, kMaxGraceSeconds); }

DeletionState RemovedNow() { return DeletionState{}; }

DeletionState Graceful(WallClock::time_point deletionTimestamp, int64_t grace) {
  return DeletionState{DeletionState::Kind::kGraceful, deletionTimestamp, seconds(grace)};
}

// Step 1 of the header's list: a DELETE of a pod already being deleted.
DeletionState Redelete(const PodDeletion& pod, WallClock::time_point now) {
  if (!pod.deletionGracePeriodSeconds || *pod.deletionGracePeriodSeconds <= 0) {
    return RemovedNow();  // 1a
  }
  const int64_t old = Bounded(*pod.deletionGracePeriodSeconds);
  const WallClock::time_point timestamp = pod.deletionTimestamp.value_or(now);
  if (!pod.gracePeriodSeconds || *pod.gracePeriodSeconds >= old) {
    return Graceful(timestamp, old);  // 1c
  }
  if (*pod.gracePeriodSeconds == 0) return RemovedNow();  // 1b
  // A negative period is read as 1 s, as a first DELETE reads it.
  const int64_t period = std::max<int64_t>(*pod.gracePeriodSeconds, 1);
  const WallClock::time_point moved = timestamp - seconds(old) + seconds(period);
  if (moved < now) return Graceful(now, 1);
  return Graceful(moved, period);
}

}  // namespace

DeletionState DeletionAfter(const PodDeletion& pod, WallClock::time_point now) {
  if (pod.deleting) return Redelete(pod, now);
  int64_t grace = pod.gracePeriodSeconds.value_or(
      pod.terminationGracePeriodSeconds.value_or(kDefaultGraceSeconds));
  if (!pod.scheduled || pod.finished) grace = 0;
  if (grace < 0) grace = 1;
  if (grace == 0) return RemovedNow();
  grace = Bounded(grace);
  return Graceful(now + seconds(grace), grace);
}

std::optional<WallClock::time_point> ReleaseTime(
    std::optional<WallClock::time_point> deletionTimestamp,
    std::optional<int64_t> deletionGracePeriodSeconds) {
  if (!deletionTimestamp || !deletionGracePeriodSeconds) return std::nullopt;
  return *deletionTimestamp +
         seconds(std::clamp<int64_t>(*deletionGracePeriodSeconds, 0, kMaxGraceSeconds));
}

}  // namespace gpugate::quota
