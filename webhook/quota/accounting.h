// What the admission handler needs from quota accounting, whichever form keeps it: the local
// ledger (quota/ledger.h, one replica, journaled to a file) or the cluster ledger
// (cluster/cluster_ledger.h, shared through the Kubernetes API by every replica).
//
// Thread-safety: every method may be called from any thread.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/deadline.h"
#include "common/result.h"
#include "common/rfc3339.h"
#include "quota/amounts.h"
#include "quota/quota_config.h"

namespace gpugate::quota {

// Identifies a pod's charge: namespace/name and the uid the apiserver gave it (empty when the
// caller does not know it).
struct PodRef {
  std::string ns;
  std::string name;
  std::string uid;
};

// When the caller needs the answer (the review's ?timeout=, less a margin): common/deadline.h.
using gpugate::Deadline;
using gpugate::kNoDeadline;

struct Charge {
  PodRef pod;
  Amounts amounts;  // milli-units, plain resources and weighted figures
  // Set while the pod is being deleted: when the charge stops counting (Accounting::ReleaseAt).
  std::optional<WallClock::time_point> releaseAt;
  // Set once the pod has started holding its devices (status.startTime): its usage runs from
  // then (Accounting::RecordStart). A charge that never starts accrues nothing.
  std::optional<WallClock::time_point> started;
};

// What a charge asks for.
struct ReserveRequest {
  PodRef pod;
  Amounts amounts;      // milli-units; negative amounts are an error
  bool dryRun = false;  // check only: nothing is charged
  // true: a charge that would go over a limit is refused (kExceeded) and nothing is charged.
  // false (the quota rule in warn or audit mode): it is charged all the same and answered
  // kChargedOverLimit, with the message a refusal would have had.
  bool enforce = true;
  Deadline deadline = kNoDeadline;
};

enum class ReserveOutcome {
  kCharged,           // fits; charged (or, for a dry run, would be charged)
  kChargedOverLimit,  // enforce false: goes over a limit; charged (a dry run: would be) anyway
  kAlreadyCharged,    // the same pod (namespace/name and uid) is already charged: nothing added
  kExceeded,          // would go over a limit; nothing charged
  // The cluster ledger only: the namespace's GPUQuota object is as large as a Kubernetes object
  // can safely be (cluster.maxGpuQuotaBytes), whatever the limits and `enforce`; nothing charged.
  kRecordFull,
  // The cluster ledger only: the charge could not be written, where no enforced limit is at
  // stake (none set, or the quota rule not in deny mode). Nothing was charged; the pod is
  // admitted all the same, and the reconciler records it from the pod watch once the API answers.
  kAdmittedUncharged,
};

struct ReserveResult {
  ReserveOutcome outcome = ReserveOutcome::kCharged;
  // For kRecordFull, what is full and how room returns. For kExceeded and kChargedOverLimit,
  // Kubernetes' wording, naming only the resources that go over:
  // "exceeded quota: team-a, requested: nvidia.com/gpu=1, used: nvidia.com/gpu=4,
  //  limited: nvidia.com/gpu=4"
  std::string message;
};

struct ResourceUsage {
  int64_t used = 0;             // milli-units
  std::optional<int64_t> hard;  // milli-units; nullopt when no limit is set
};

struct NamespaceUsage {
  std::string ns;
  std::map<std::string, ResourceUsage, std::less<>> resources;  // sorted by resource name
};

class Accounting {
 public:
  virtual ~Accounting() = default;

  // Checks `request.amounts` against the namespace's limits and, unless `dryRun`, charges them
  // to `request.pod`, atomically with respect to every other Reserve (in every replica, for the
  // cluster form); past a limit, `enforce` decides between refusing and charging anyway.
  // An error means the charge could not be recorded: the caller must refuse the admission.
  // An answer needed by `deadline` (what waits on another process, the API server, gives up
  // then; kNoDeadline: the accounting's own bound) is an error when it cannot be had in time.
  virtual Result<ReserveResult> Reserve(const ReserveRequest& request) = 0;
  // An enforced charge.
  Result<ReserveResult> Reserve(const PodRef& pod, const Amounts& amounts, bool dryRun,
                                Deadline deadline = kNoDeadline) {
    return Reserve(ReserveRequest{
        .pod = pod, .amounts = amounts, .dryRun = dryRun, .enforce = true, .deadline = deadline});
  }

  // Gives back what was charged under `pod`'s namespace/name. Returns whether anything was.
  virtual Result<bool> Release(const PodRef& pod, Deadline deadline) = 0;
  Result<bool> Release(const PodRef& pod) { return Release(pod, kNoDeadline); }

  // The pod is being deleted gracefully: what is charged under its namespace/name keeps
  // counting until `releaseAt` has passed (deletionTimestamp + deletionGracePeriodSeconds,
  // quota/release_edge.h), unless released before; a later call may only bring that earlier.
  // Returns whether anything is charged there. An error means it could not be recorded; the
  // charge then counts until it is released.
  virtual Result<bool> ReleaseAt(const PodRef& pod, WallClock::time_point releaseAt,
                                 Deadline deadline) = 0;

  // The pod started holding its devices at `startedAt` (its status.startTime): recorded on the
  // charge of `pod`'s uid under its namespace/name (every unstarted charge there when none has
  // that uid), once: a charge that has a start keeps it. Returns whether a start was recorded;
  // an error means it could not be, and a later call may try again. The default, for an
  // accounting that keeps no usage, records nothing.
  virtual Result<bool> RecordStart(const PodRef& pod, WallClock::time_point startedAt,
                                   Deadline deadline) {
    (void)pod, (void)startedAt, (void)deadline;
    return false;
  }

  // Whether RecordStart(pod, ...) would record a start now. Answers from memory without waiting
  // for a journal write, so the transport can ask it before choosing a thread.
  virtual bool AwaitsStart(const PodRef& pod) const {
    (void)pod;
    return false;
  }

  // The time the accounting reads its release times against (an injected clock in tests).
  virtual WallClock::time_point Now() const { return WallClock::now(); }

  // Usage of every namespace with a limit or a charge, sorted by namespace; `onlyNs` filters.
  virtual std::vector<NamespaceUsage> Usage(std::string_view onlyNs = {}) const = 0;

  virtual const QuotaConfig& config() const = 0;

  // Whether Reserve and Release may wait on something outside memory (a journal's fsync, the API
  // server). False: they answer from memory, holding a lock no longer than that takes, so a
  // caller that must not block may call them.
  virtual bool MayWait() const { return true; }

  // False until the accounting can answer exactly (the cluster form before its first full sync
  // with the API). /readyz reports it.
  virtual bool Ready() const { return true; }
};

}  // namespace gpugate::quota
