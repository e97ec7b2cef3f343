// What the cluster ledger knows from its three watches: GPU pods, ResourceQuota limits and the
// GPUQuota records. Fed by informers' handlers; read by Reserve (limits, the record to try
// first), the reconciler and Usage, none of which call the API through it.
//
// Thread-safety: every method may be called from any thread; one mutex guards the maps.
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/gpu_quota_record.h"
#include "cluster/informer.h"
#include "policy/settings.h"
#include "quota/accounting.h"
#include "quota/quota_config.h"

namespace gpugate::cluster {

// A pod that asks for a managed resource, as the watch last showed it.
struct PodInfo {
  std::string uid;
  // status.phase Succeeded or Failed, or deleted (a tombstone, below): holds no devices any more.
  bool terminal = false;
  bool deleting = false;   // metadata.deletionTimestamp is set
  quota::Amounts amounts;  // quota::PodCharge of its spec; never empty
  // Being deleted: when it stops counting, deletionTimestamp + deletionGracePeriodSeconds
  // (quota::ReleaseTime, as ResourceQuota counts it); nullopt otherwise.
  std::optional<WallClock::time_point> releaseAt;
  // When the watch reported the pod deleted; the epoch while it exists. The entry stays this
  // long as a tombstone so the reconciler frees the charge at once instead of after the grace
  // that a pod it never saw gets.
  WallClock::time_point goneSince{};
  // status.startTime: when it started holding its devices (its usage runs from then).
  std::optional<WallClock::time_point> started;
  // When it stopped holding them, once terminal (docs/quota.md, "When a pod starts and stops"):
  // finished (Succeeded or Failed), the latest state.terminated.finishedAt of its containers, or
  // when the watch first showed it finished if none is given; deleted, when the watch showed it
  // gone or its releaseAt, whichever is earlier. Kept from the first event that sets it.
  std::optional<WallClock::time_point> ended;
};

using PodMap = std::map<std::string, PodInfo, std::less<>>;  // by pod name

class ClusterCache {
 public:
  // `config` and `settings` must outlive the cache. `wake` runs on an informer's thread, outside
  // the cache's lock, whenever the reconciler has something to do: a cached GPU pod was deleted
  // or turned terminal (a charge to free), or a list arrived (a first sync, or a relist that may
  // have dropped pods it never reported).
  ClusterCache(const quota::QuotaConfig& config, const policy::Settings& settings,
               std::string recordName, std::function<WallClock::time_point()> now,
               std::function<void()> wake);

  InformerHandlers PodHandlers();
  InformerHandlers ResourceQuotaHandlers();
  InformerHandlers RecordHandlers();

  // The namespace's hard limits: the config's and its ResourceQuotas', the smaller where both
  // set one. Empty when it has none.
  quota::Amounts Limits(std::string_view ns) const;

  // The namespace's record as last seen (watch or this replica's own write); nullopt if none.
  std::optional<GpuQuotaRecord> Record(std::string_view ns) const;
  // What usage reads of Record(ns) and of every namespace's record (sorted by namespace),
  // taken under the lock without copying the objects. UsageRecord leaves the book out (null)
  // when the record's version is `bookKnownAt`.
  std::optional<RecordUsage> UsageRecord(std::string_view ns,
                                         std::string_view bookKnownAt = {}) const;
  std::vector<RecordUsage> UsageRecords() const;
  // Stores a record this replica has just written, so its next Reserve starts from it. It is
  // preferred to the watched copy until the watch delivers that same resourceVersion (or a list
  // arrives). resourceVersions are opaque: they are only ever compared for equality, and which
  // copy is newer follows from the watch's order of events, never from the versions' values.
  void StoreRecord(GpuQuotaRecord record);

  struct NamespaceState {
    std::optional<GpuQuotaRecord> record;
    PodMap pods;
    quota::Amounts hard;
  };
  // Every namespace with a record or a GPU pod, sorted.
  std::map<std::string, NamespaceState, std::less<>> Snapshot() const;

  // The namespace's GPU pods as the watch shows them (tombstones included).
  PodMap Pods(std::string_view ns) const;

  // Forgets the tombstones of pods deleted before `before`.
  void ForgetGonePods(WallClock::time_point before);

  // quota::Accounting::Usage from the record and the limits.
  std::vector<quota::NamespaceUsage> Usage(std::string_view onlyNs) const;

 private:
  quota::Amounts LimitsLocked(std::string_view ns) const;
  // Our unseen write if there is one, else the watched copy; null when neither.
  const GpuQuotaRecord* NewestLocked(std::string_view ns) const;
  using PodsByNamespace = std::map<std::string, PodMap, std::less<>>;
  // namespace -> ResourceQuota name -> its limits on managed resources
  using QuotasByNamespace =
      std::map<std::string, std::map<std::string, quota::Amounts>, std::less<>>;
  // A list's outcome replaces what the cache held, under the lock, then wakes the reconciler.
  void OnPodList(PodsByNamespace pods);
  void OnRecordList(std::map<std::string, GpuQuotaRecord, std::less<>> records);
  void OnPodEvent(const WatchEvent& event);

  const quota::QuotaConfig& config_;
  const policy::Settings& settings_;
  const std::string recordName_;
  const std::function<WallClock::time_point()> now_;
  const std::function<void()> wake_;

  mutable std::mutex mu_;
  PodsByNamespace pods_;      // guarded by mu_
  QuotasByNamespace quotas_;  // guarded by mu_
  // Guarded by mu_; by namespace. records_: as the watch (or the last list) shows them.
  // written_: this replica's writes the watch has not delivered yet, newer than records_ since
  // the watch delivers a record's versions in order. delivered_: the last few versions the watch
  // delivered, so a write whose answer comes after its own watch event is not kept as newer.
  static constexpr size_t kDeliveredKept = 8;
  std::map<std::string, GpuQuotaRecord, std::less<>> records_;
  std::map<std::string, GpuQuotaRecord, std::less<>> written_;
  std::map<std::string, std::deque<std::string>, std::less<>> delivered_;
};

}  // namespace gpugate::cluster
