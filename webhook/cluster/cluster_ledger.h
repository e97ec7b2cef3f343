// Quota accounting shared by every replica through the Kubernetes API (cluster mode).
//
// The API (and the etcd behind it) is the one shared state:
//   - limits: ResourceQuota objects (spec.hard keys `requests.<resource>` and `<resource>` for
//     managed resources), together with the config file's quota.namespaces (the smaller wins);
//   - charges: one GPUQuota object per namespace (gpugate.io/v1alpha1, name "gpugate"), whose
//     status holds every charge {pod name -> uid, admission time, amounts, start}, used and hard,
//     and the namespace's GPU-hour usage book (with ClusterOptions::usage; record_book.h);
//   - truth about pods: a watch on every Pod.
//
// Reserve is a read-check-write of the namespace's GPUQuota guarded by its resourceVersion and
// retried on 409 Conflict, as the built-in ResourceQuota admission does: two replicas can never
// both commit against the same usage, so a burst across replicas never admits past a limit.
// Within a replica, the charges and releases that arrive while a write to their namespace is in
// flight share the next one (group commit, group_commit.h), each checked in arrival order.
// A reconciler (each replica; writes are resourceVersion-guarded, so they cannot clobber) records
// the pods' starts, drops charges of pods that finished or were deleted (their usage accrued in
// that same write, as a release's is), drops charges of pods that never appeared
// (refused by a later admission step) once they are older than `reservationGrace`, and adds
// charges for running GPU pods the ledger does not know (admitted while gpugate was down).
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "cluster/api_client.h"
#include "cluster/api_retry.h"
#include "cluster/cluster_usage.h"
#include "cluster/group_commit.h"
#include "cluster/informer.h"
#include "cluster/kube_object.h"
#include "cluster/record_book.h"
#include "policy/settings.h"
#include "quota/accounting.h"

namespace gpugate::cluster {

struct ClusterOptions {
  // A charge whose pod the watch has not shown is kept this long: the pod may still be on its
  // way through the apiserver. After that, it was refused later in admission and is dropped.
  std::chrono::milliseconds reservationGrace = std::chrono::seconds(60);
  std::chrono::milliseconds reconcileInterval{1000};
  int maxConflictRetries = 20;
  // A charge that would take its namespace's GPUQuota past this many bytes (as written) is
  // refused, kRecordFull: etcd refuses requests over 1.5 MiB by default, and the API server's
  // managedFields and metadata need room beside the status. 0: no bound.
  size_t maxRecordBytes = 1 << 20;
  // Transient API answers (429, 503, a 500 from etcd) on a charge's or a release's GET, PUT and
  // POST are tried again within a time budget (cluster/api_retry.h). The reconciler does not
  // wait: its next pass tries again.
  ApiRetry retry;
  std::string gpuQuotaName = "gpugate";  // the per-namespace GPUQuota object's name
  // Stamps charges' admission times and ages them against reservationGrace; null: the system
  // clock. Replicas compare each other's stamps, so their clocks must roughly agree (NTP).
  std::function<std::chrono::system_clock::time_point()> clock;
  // Failures the ledger recovers from by itself, for the logs: a watch that broke, a
  // reconciliation write the API refused, a charge in a namespace without limits that the API
  // would not take (the pod is admitted; the reconciler records it later). Called on the failing
  // thread; may be null.
  std::function<void(const std::string& message)> onError;
  // How the GPUQuota records' usage books are kept (the config's usage section): each write that
  // drops a charge accrues its pod's usage to the book in the same guarded write
  // (cluster/record_book.h). nullopt: no usage is kept; charges are dropped unaccrued.
  std::optional<BookSettings> usage;
};

class ClusterLedger : public quota::Accounting, public RecordSource {
 public:
  // `client` must outlive the ledger.
  ClusterLedger(ApiClient& client, quota::QuotaConfig config, policy::Settings settings,
                ClusterOptions options = {});
  ~ClusterLedger() override;  // stops

  // Starts the informers (pods, resourcequotas, gpuquotas) and the reconciler. After Stop,
  // starts them again: each informer relists, and the reconciler runs until the next Stop.
  void Start();
  void Stop();

  // Until every informer has delivered its first list, Reserve refuses GPU pods in namespaces
  // that have a limit, or may have one (ResourceQuotas not listed yet): fail closed. /readyz
  // says not ready meanwhile.
  bool Ready() const override;

  // The local ledger's semantics (quota/ledger.h: same uid once, another uid beside, the same
  // denial message), made a read-check-write of the namespace's GPUQuota, shared with the other
  // changes queued for the namespace (group commit): the first try starts from the watched copy,
  // later ones from a GET after a jittered backoff; the write is a PUT guarded by the copy's
  // resourceVersion (a POST when the record does not exist yet), retried on 409 up to
  // maxConflictRetries. A refusal, a dry run's answer or "already charged" is only given from a
  // fresh read or alongside a successful guarded write, never from the watched copy alone. A
  // charge that would take the record past maxRecordBytes is kRecordFull. An error (the API
  // unreachable or refusing, retries exhausted, a record whose status cannot be read) means nothing
  // was charged. Everything is bounded by `deadline` (kNoDeadline: options.retry.budget from now):
  // waiting behind this replica's other writes to the namespace, each API call (its timeout is the
  // time left), transient answers retried (api_retry.h), conflicts redone. A transient answer still
  // there when the deadline leaves no room for another try is the error, naming its status and
  // message; so is the deadline passing while waiting.
  // Without `enforce`, a charge over a limit is written all the same (kChargedOverLimit), and
  // neither the first sync nor an API failure in a limited namespace refuses it: as in a
  // namespace without limits, nothing would be refused for the limit.
  Result<quota::ReserveResult> Reserve(const quota::ReserveRequest& request) override;
  using quota::Accounting::Reserve;
  // Removes every charge under the pod's name (resourceVersion-guarded, retried on 409), within
  // `deadline` as Reserve. When the watched record holds nothing under that name, answers false
  // without calling the API: a charge the watch has not shown yet is the reconciler's to drop.
  Result<bool> Release(const quota::PodRef& pod, quota::Deadline deadline) override;
  using quota::Accounting::Release;
  // Writes nothing: the pod watch shows the deletion (deletionTimestamp and its grace period),
  // and the reconciler drops the charge once the pod is gone or that time has passed
  // (reconcile.h), in every replica alike. Answers whether the watched record holds a charge
  // under the pod's name; never calls the API.
  Result<bool> ReleaseAt(const quota::PodRef& pod, WallClock::time_point releaseAt,
                         quota::Deadline deadline) override;
  // options.clock, or the system clock.
  WallClock::time_point Now() const override;
  // From the watched GPUQuota objects and limits: no API call, never blocks on the API.
  std::vector<quota::NamespaceUsage> Usage(std::string_view onlyNs = {}) const override;
  const quota::QuotaConfig& config() const override { return config_; }

  // RecordSource (cluster_usage.h): the watched records, or this replica's newer writes; no API
  // call. RecordsSynced: the GPUQuota objects have been listed.
  std::optional<RecordUsage> RecordOf(std::string_view ns,
                                      std::string_view bookKnownAt) const override;
  std::vector<RecordUsage> AllRecords() const override;
  bool RecordsSynced() const override;

  // How this replica's charges and releases were grouped into writes (group_commit.h).
  GroupCommit::Stats GroupCommitStats() const;

  // One reconciliation pass now (the reconciler thread calls this every reconcileInterval).
  void ReconcileOnce();

 private:
  struct Engine;  // cluster_ledger.cc
  ApiClient& client_;
  quota::QuotaConfig config_;
  policy::Settings settings_;
  ClusterOptions options_;
  std::unique_ptr<Engine> engine_;
};

}  // namespace gpugate::cluster
