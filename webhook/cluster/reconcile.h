// The reconciler's rule, as a pure function: what a namespace's GPUQuota record should hold given
// what the pod watch shows. Every replica runs it; writes are resourceVersion-guarded.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/cluster_cache.h"
#include "cluster/gpu_quota_record.h"
#include "cluster/record_book.h"

namespace gpugate::cluster {

struct ReconcileContext {
  WallClock::time_point now;
  std::chrono::milliseconds reservationGrace = std::chrono::seconds(60);
  // The pod watch is live: a pod it does not show does not exist (give or take its lag).
  bool podsFresh = false;
  // Charge the pods shown running with no charge (false when the record has no room for them).
  bool chargeUncharged = true;
};

// From `charges` (the record) and `pods` (the namespace's GPU pods in the watch):
//   - a charge whose pod (same name and uid) is shown keeps it while the pod is not terminal,
//     and is dropped once it is (Succeeded or Failed, or deleted: a tombstone in the cache), or
//     once it is being deleted and `now` is past its deletionTimestamp + grace (PodInfo::
//     releaseAt: a pod stuck terminating stops counting, as in ResourceQuota);
//   - a charge whose pod is not shown (absent, or the name now has another uid) is dropped once
//     it is older than the grace and the watch is live: that pod was refused after gpugate
//     admitted it, or went away unseen. Younger, it may still be on its way through the apiserver;
//   - a pod shown running (not terminal, not being deleted) with no charge is charged, stamped
//     `now`, when the watch is live and `chargeUncharged`: it was admitted while gpugate was
//     down or bypassed;
//   - a kept charge without a start takes its pod's status.startTime once the watch shows it
//     (PodInfo::started; same uid), and keeps it from then on;
//   - a charge added for a running pod starts at `now` at the earliest: the pod may be one whose
//     final DELETE has released its charge, and accrued its usage, before the watch showed it
//     gone, so only what runs from now on is new. (A pod admitted while gpugate was down is
//     counted from when the reconciler finds it.)
ChargeMap DesiredCharges(const ChargeMap& charges, const PodMap& pods,
                         const ReconcileContext& context);

// What bounds a record the reconciler writes.
struct RecordBounds {
  std::string_view name;               // the record's object name, for a record not written yet
  quota::Amounts hard;                 // the namespace's limits, written as status.hard
  size_t maxRecordBytes = 0;           // the whole object's bound as written; 0: none
  const BookSettings* book = nullptr;  // null: no usage is kept (charges dropped unaccrued)
};

struct ReconciledRecord {
  GpuQuotaRecord next;
  // For the log: usage the write leaves unrecorded (worth saying once the write has landed).
  std::vector<std::string> problems;
  // For the log, whether or not anything is written: why pods running without a charge were
  // left uncharged ("" when none were).
  std::string leftUncharged;
};

// The record the reconciler writes for `record`, in one guarded write:
//   1. the charges DesiredCharges keeps, starts recorded, without charging uncharged pods;
//   2. the usage of the charges that dropped accrued into the book (record_book.h), the book
//      held within the room the rest of the record leaves under maxRecordBytes;
//   3. the pods running without a charge charged, if the record then stays within
//      maxRecordBytes; else left for a later pass, and a problem says so.
// A record whose status could not be read is rebuilt from the pods (its problem cleared).
ReconciledRecord ReconcileRecord(const GpuQuotaRecord& record, const PodMap& pods,
                                 const ReconcileContext& context, const RecordBounds& bounds);

}  // namespace gpugate::cluster
