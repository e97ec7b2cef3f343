// Group commit of one replica's changes to a namespace's GPUQuota: charges and releases that
// arrive while a write for their namespace is in flight wait, and the next write carries all of
// them, each checked in arrival order against the record as it stands after the ones before it.
// One guarded write (and, after a conflict, one re-read) serves a whole burst instead of one
// read-check-write per pod, as kube-apiserver's ResourceQuota admission batches its waiters per
// quota. Exactness is unchanged: a batch is applied to one resourceVersion and written guarded
// by it, so across replicas a write still lands only on the version its checks read.
//
// Who applies a batch: when no write is in flight for the namespace, the waiters queued (up to
// maxBatch, in arrival order) become the next batch, and the thread of the member with the
// latest deadline runs `apply` for all of them, bounded by that deadline; the others sleep until
// it hands them their results. So no member's time is cut short by another's. Every member is
// answered by its own deadline: one whose deadline passes while queued leaves the queue, and one
// whose deadline passes while its batch is still being written leaves with an error too (its
// change may still land with the batch: a charge for a pod that is then refused is dropped by
// the reconciler after the grace, as any charge whose pod never appears).
//
// A waiter (one Submit) moves through these states, under the mutex; Submit's loop acts on the
// state it finds each time it wakes:
//   kQueued  -> kInBatch   FormBatch took it into the next batch;
//   kQueued  -> kLeading   ... as the member with the batch's latest deadline: its own thread
//                          applies the whole batch next (Execute), the lock released meanwhile;
//   kQueued  -> kAnswered  FormBatch found its deadline passed (an error, never applied);
//   kInBatch -> kAnswered, kLeading -> kAnswered   the batch was applied: every member has its
//                          result, the leader's included.
// A waiter whose deadline passes while kQueued leaves the queue; while kInBatch it leaves with an
// error and its entry stays in the batch, answered to no one. A leader never leaves: it is
// answered by the write it bounds.
//
// Thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "quota/accounting.h"

namespace gpugate::cluster {

// One change to a namespace's record.
struct LedgerOp {
  enum class Kind { kCharge, kRelease };
  Kind kind = Kind::kCharge;
  quota::PodRef pod;
  quota::Amounts amounts;  // kCharge
  bool dryRun = false;     // kCharge: checked, never written
  bool enforce = true;     // kCharge: false charges past a limit (kChargedOverLimit)
};

struct LedgerOpResult {
  quota::ReserveResult reserve;  // kCharge
  bool released = false;         // kRelease: something was held under the pod's name
};

class GroupCommit {
 public:
  // Applies `ops` to the namespace's record in one write, within `deadline`; returns one result
  // per op, in order (an error for one op fails only that op).
  using Apply = std::function<std::vector<Result<LedgerOpResult>>(
      std::string_view ns, std::span<const LedgerOp* const> ops, quota::Deadline deadline)>;

  explicit GroupCommit(Apply apply, size_t maxBatch = 512);

  // Queues `op` and returns its result once a batch has applied it; an error when `deadline`
  // (steady time) passes first.
  Result<LedgerOpResult> Submit(std::string_view ns, LedgerOp op, quota::Deadline deadline);

  struct Stats {
    uint64_t batches = 0;  // calls of `apply`
    uint64_t ops = 0;      // ops they carried
    size_t largest = 0;    // the most ops in one batch
    size_t queued = 0;     // now: changes queued behind a write in flight, every namespace
  };
  Stats stats() const;

 private:
  enum class WaiterState { kQueued, kInBatch, kLeading, kAnswered };
  struct Waiter;
  using WaiterPtr = std::shared_ptr<Waiter>;  // shared: a member may leave before its batch ends
  struct Queue {
    std::condition_variable changed;  // a batch was formed or finished
    std::deque<WaiterPtr> pending;    // not yet in a batch, in arrival order
    bool applying = false;            // a batch is formed and not finished
  };

  Queue& QueueFor(std::string_view ns);           // requires mu_
  void FormBatch(std::string_view ns, Queue& q);  // requires mu_
  void Execute(std::string_view ns, Queue& q, Waiter& self, std::unique_lock<std::mutex>& lock);

  const Apply apply_;
  const size_t maxBatch_;
  mutable std::mutex mu_;
  // Guarded by mu_; one per namespace ever charged here, never erased (a few words each).
  std::map<std::string, std::unique_ptr<Queue>, std::less<>> queues_;
  Stats stats_;  // guarded by mu_
};

}  // namespace gpugate::cluster
