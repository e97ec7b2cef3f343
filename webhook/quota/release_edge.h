// When a deleted Pod's charge ends: the API server's rules for a pod's graceful deletion and
// ResourceQuota's rule for when a terminating pod stops counting, as one pure function, so the
// local ledger (from DELETE reviews) and the cluster ledger (from the pod watch) end a charge at
// the same moment.
//
// A DELETE of a Pod, as the API server handles it (pkg/registry/core/pod/strategy.go
// CheckGracefulDelete; staging apiserver pkg/registry/rest/delete.go BeforeDelete), in order:
//  1. A pod already being deleted (deletionTimestamp set):
//     a. no deletionGracePeriodSeconds, or 0: it is removed now;
//     b. the DELETE gives a shorter gracePeriodSeconds g: removed now when g is 0; else
//        deletionTimestamp becomes deletionTimestamp - old grace + g, or, when that has passed,
//        now with a grace of 1 s;
//     c. otherwise nothing changes.
//  2. Any other pod: grace = the DELETE's gracePeriodSeconds, else
//  spec.terminationGracePeriodSeconds,
//     else 30 (the value the API server stores in every pod at creation; a review without it
//     must come from elsewhere, and erring long keeps the limit); 0 when the pod was never
//     scheduled (no spec.nodeName) or has finished (Succeeded, Failed); 1 when negative.
//     Grace 0: removed now. Else deletionTimestamp = now + grace, deletionGracePeriodSeconds =
//     grace.
// A pod being deleted counts until deletionTimestamp + deletionGracePeriodSeconds has passed
// (pkg/quota/v1/evaluator/core/pods.go QuotaV1Pod): a pod stuck terminating on a lost node then
// stops blocking its namespace. Before that, it counts until it is gone or reports a finished
// phase, whichever comes first.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>

#include "common/rfc3339.h"

namespace gpugate::quota {

// What a DELETE review says of the pod (as stored before this delete) and of the request.
struct PodDeletion {
  bool scheduled = false;                                // spec.nodeName is set
  bool finished = false;                                 // status.phase is Succeeded or Failed
  std::optional<int64_t> terminationGracePeriodSeconds;  // spec.
  // Set when the pod is already being deleted; `deleting` without a readable timestamp is read
  // as a deletion starting now.
  bool deleting = false;
  std::optional<WallClock::time_point> deletionTimestamp;  // metadata.
  std::optional<int64_t> deletionGracePeriodSeconds;       // metadata.
  std::optional<int64_t> gracePeriodSeconds;  // the DELETE's options; nullopt when not given
};

// The pod's deletion after this DELETE, as the API server records it.
struct DeletionState {
  enum class Kind {
    kRemovedNow,  // the pod is gone (or as good as gone): its charge ends now
    kGraceful,    // the pod terminates until `deletionTimestamp`, and counts until `ReleaseAt`
  };
  Kind kind = Kind::kRemovedNow;
  WallClock::time_point deletionTimestamp{};
  std::chrono::seconds grace{0};

  // When the pod stops counting for quota: deletionTimestamp + grace (kGraceful only).
  WallClock::time_point ReleaseAt() const { return deletionTimestamp + grace; }
};

// The deletion a DELETE leaves, `now` being the API server's time of the request.
DeletionState DeletionAfter(const PodDeletion& pod, WallClock::time_point now);

// When a pod being deleted stops counting: deletionTimestamp + deletionGracePeriodSeconds, or
// nullopt when it is not being deleted or the API server has not said when (it then counts
// until it is gone, as ResourceQuota counts it).
std::optional<WallClock::time_point> ReleaseTime(
    std::optional<WallClock::time_point> deletionTimestamp,
    std::optional<int64_t> deletionGracePeriodSeconds);

}  // namespace gpugate::quota
