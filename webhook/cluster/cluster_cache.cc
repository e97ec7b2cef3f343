#include "cluster/cluster_cache.h"

#include <algorithm>
#include <set>

#include "cluster/kube_object.h"
#include "cluster/limits.h"
#include "policy/pod_facts.h"
#include "quota/pod_charge.h"
#include "quota/release_edge.h"
#include "review/pod_spec_finder.h"

namespace gpugate::cluster {
namespace {

using nlohmann::json;

// metadata.<field> as a string; "" when absent or not a string.
std::string Meta(const json& object, std::string_view field) {
  return StringAt(object, {"metadata", field});
}

std::string Phase(const json& pod) { return StringAt(pod, {"status", "phase"}); }

std::optional<WallClock::time_point> TimeAt(const json& object,
                                            std::initializer_list<std::string_view> path) {
  Result<WallClock::time_point> t = ParseRfc3339(StringAt(object, path));
  if (!t) return std::nullopt;
  return *t;
}

// The latest state.terminated.finishedAt among the pod's containers (init containers included),
// or nullopt when none reports one.
std::optional<WallClock::time_point> LastFinish(const json& pod) {
  std::optional<WallClock::time_point> last;
  for (const char* list : {"initContainerStatuses", "containerStatuses"}) {
    const json* statuses = At(pod, {"status", list});
    if (!statuses || !statuses->is_array()) continue;
    for (const json& status : *statuses) {
      auto at = TimeAt(status, {"state", "terminated", "finishedAt"});
      if (at && (!last || *at > *last)) last = at;
    }
  }
  return last;
}

// The pod's entry in the cache, or nullopt when it asks for no managed resource (or lives in an
// exempt namespace, where nothing is charged). `now`: when the watch shows it.
std::optional<PodInfo> GpuPod(const json& pod, const policy::Settings& settings,
                              const quota::QuotaConfig& config, WallClock::time_point now) {
  if (settings.IsExempt(Meta(pod, "namespace"))) return std::nullopt;
  quota::Amounts amounts;
  const policy::ObjectView view = review::FindPodSpecs(pod);
  if (const policy::PodSpecView* spec = policy::OwnPodSpec(view)) {
    amounts = quota::PodCharge(*spec, settings, config);
  }
  if (amounts.empty()) return std::nullopt;
  const std::string deletion = Meta(pod, "deletionTimestamp");
  std::optional<WallClock::time_point> deletionTimestamp;
  if (Result<WallClock::time_point> t = ParseRfc3339(deletion); t) deletionTimestamp = *t;
  std::optional<int64_t> grace;
  if (const json* g = At(pod, {"metadata", "deletionGracePeriodSeconds"});
      g && g->is_number_integer()) {
    grace = g->get<int64_t>();
  }
  PodInfo info{.uid = Meta(pod, "uid"),
               .terminal = policy::IsFinishedPhase(Phase(pod)),
               .deleting = !deletion.empty(),
               .amounts = std::move(amounts),
               .releaseAt = quota::ReleaseTime(deletionTimestamp, grace),
               .started = TimeAt(pod, {"status", "startTime"})};
  if (info.terminal) {
    info.ended = LastFinish(pod);
    if (!info.ended) info.ended = now;
  }
  return info;
}

}  // namespace

ClusterCache::ClusterCache(const quota::QuotaConfig& config, const policy::Settings& settings,
                           std::string recordName, std::function<WallClock::time_point()> now,
                           std::function<void()> wake)
    : config_(config),
      settings_(settings),
      recordName_(std::move(recordName)),
      now_(std::move(now)),
      wake_(std::move(wake)) {}

void ClusterCache::OnPodList(PodsByNamespace pods) {
  {
    std::lock_guard lock(mu_);
    // A relist shows a finished pod's state again, not when it finished: keep the end seen first.
    for (auto& [ns, listed] : pods) {
      auto known = pods_.find(ns);
      if (known == pods_.end()) continue;
      for (auto& [name, info] : listed) {
        auto before = known->second.find(name);
        if (before != known->second.end() && before->second.uid == info.uid &&
            before->second.ended && info.ended) {
          info.ended = before->second.ended;
        }
      }
    }
    pods_ = std::move(pods);
  }
  if (wake_) wake_();
}

void ClusterCache::OnPodEvent(const WatchEvent& event) {
  std::string ns = Meta(event.object, "namespace");
  std::string name = Meta(event.object, "name");
  std::optional<PodInfo> info;
  const WallClock::time_point now = now_();
  if (event.type != WatchEvent::Type::kDeleted) {
    info = GpuPod(event.object, settings_, config_, now);
  }
  bool released = false;
  {
    std::lock_guard lock(mu_);
    auto nsPods = pods_.find(ns);
    bool known = nsPods != pods_.end() && nsPods->second.contains(name);
    if (info) {
      const PodInfo* before = known ? &nsPods->second[name] : nullptr;
      released = info->terminal && (!before || !before->terminal);
      // The first end the watch showed stands: a later event's "now" is no finish.
      if (before && before->uid == info->uid && before->ended) info->ended = before->ended;
      pods_[ns][name] = std::move(*info);
    } else if (known && nsPods->second[name].goneSince == WallClock::time_point{}) {
      released = true;
      PodInfo& tombstone = nsPods->second[name];
      tombstone.terminal = true;
      tombstone.goneSince = now;
      if (!tombstone.ended) {
        tombstone.ended = tombstone.releaseAt ? std::min(now, *tombstone.releaseAt) : now;
      }
    }
  }
  if (released && wake_) wake_();
}

InformerHandlers ClusterCache::PodHandlers() {
  // Each pod of a list is decoded as it arrives and dropped unless it asks for a managed
  // resource; what is kept of a GPU pod is its PodInfo. So a list of any size holds the GPU
  // pods' entries, not the pods.
  auto onList = [this] {
    auto pods = std::make_shared<PodsByNamespace>();
    return MakeListSink(
        [this, pods](json pod) {
          if (std::optional<PodInfo> info = GpuPod(pod, settings_, config_, now_())) {
            (*pods)[Meta(pod, "namespace")][Meta(pod, "name")] = std::move(*info);
          }
        },
        [this, pods] { OnPodList(std::move(*pods)); });
  };
  return {onList, [this](const WatchEvent& event) { OnPodEvent(event); }};
}

InformerHandlers ClusterCache::ResourceQuotaHandlers() {
  auto onList = [this] {
    auto quotas = std::make_shared<QuotasByNamespace>();
    auto add = [this, quotas](json rq) {
      quota::Amounts limits = ResourceQuotaLimits(rq, settings_, config_.flavors);
      if (!limits.empty()) (*quotas)[Meta(rq, "namespace")][Meta(rq, "name")] = std::move(limits);
    };
    auto commit = [this, quotas] {
      {
        std::lock_guard lock(mu_);
        quotas_ = std::move(*quotas);
      }
      if (wake_) wake_();
    };
    return MakeListSink(add, commit);
  };
  auto onEvent = [this](const WatchEvent& event) {
    std::string ns = Meta(event.object, "namespace");
    quota::Amounts limits;
    if (event.type != WatchEvent::Type::kDeleted)
      limits = ResourceQuotaLimits(event.object, settings_, config_.flavors);
    std::lock_guard lock(mu_);
    auto& nsQuotas = quotas_[ns];
    if (limits.empty()) {
      nsQuotas.erase(Meta(event.object, "name"));
    } else {
      nsQuotas[Meta(event.object, "name")] = std::move(limits);
    }
    if (nsQuotas.empty()) quotas_.erase(ns);
  };
  return {onList, onEvent};
}

void ClusterCache::OnRecordList(std::map<std::string, GpuQuotaRecord, std::less<>> records) {
  {
    std::lock_guard lock(mu_);
    records_ = std::move(records);
    // A list is at least as new as every write that had finished when it was asked for (its
    // first page); a write that finished later comes in on the watch that follows. So nothing
    // of ours is newer than the list for sure, and keeping a copy of ours could keep one that is
    // older. Dropping them costs at most a 409 and a fresh read on the next Reserve.
    written_.clear();
    delivered_.clear();
    for (const auto& [ns, record] : records_) delivered_[ns].push_back(record.resourceVersion());
  }
  if (wake_) wake_();
}

InformerHandlers ClusterCache::RecordHandlers() {
  auto onList = [this] {
    auto records = std::make_shared<std::map<std::string, GpuQuotaRecord, std::less<>>>();
    auto add = [this, records](json object) {
      if (Meta(object, "name") != recordName_) return;
      GpuQuotaRecord record = DecodeGpuQuota(object);
      (*records)[record.ns] = std::move(record);
    };
    return MakeListSink(add, [this, records] { OnRecordList(std::move(*records)); });
  };
  auto onEvent = [this](const WatchEvent& event) {
    if (Meta(event.object, "name") != recordName_) return;
    GpuQuotaRecord record = DecodeGpuQuota(event.object);
    std::lock_guard lock(mu_);
    std::string version = record.resourceVersion();
    std::deque<std::string>& delivered = delivered_[record.ns];
    delivered.push_back(version);
    if (delivered.size() > kDeliveredKept) delivered.pop_front();
    // The watch has caught up with our write: from here on it is the newest copy.
    if (auto mine = written_.find(record.ns);
        mine != written_.end() && mine->second.resourceVersion() == version) {
      written_.erase(mine);
    }
    if (event.type == WatchEvent::Type::kDeleted) {
      records_.erase(record.ns);
    } else {
      records_[record.ns] = std::move(record);
    }
  };
  return {onList, onEvent};
}

void ClusterCache::StoreRecord(GpuQuotaRecord record) {
  std::lock_guard lock(mu_);
  // Already delivered by the watch (the PUT's answer came after the event): the watched copy is
  // this version or one after it.
  if (auto delivered = delivered_.find(record.ns); delivered != delivered_.end()) {
    const auto& versions = delivered->second;
    if (std::find(versions.begin(), versions.end(), record.resourceVersion()) != versions.end()) {
      return;
    }
  }
  std::string ns = record.ns;
  written_[ns] = std::move(record);
}

const GpuQuotaRecord* ClusterCache::NewestLocked(std::string_view ns) const {
  if (auto mine = written_.find(ns); mine != written_.end()) return &mine->second;
  if (auto watched = records_.find(ns); watched != records_.end()) return &watched->second;
  return nullptr;
}

quota::Amounts ClusterCache::LimitsLocked(std::string_view ns) const {
  quota::Amounts out;
  if (auto configured = config_.limits.find(ns); configured != config_.limits.end()) {
    out = configured->second;
  }
  if (auto quotas = quotas_.find(ns); quotas != quotas_.end()) {
    for (const auto& [name, limits] : quotas->second) out = MinLimits(out, limits);
  }
  return out;
}

quota::Amounts ClusterCache::Limits(std::string_view ns) const {
  std::lock_guard lock(mu_);
  return LimitsLocked(ns);
}

std::optional<GpuQuotaRecord> ClusterCache::Record(std::string_view ns) const {
  std::lock_guard lock(mu_);
  const GpuQuotaRecord* record = NewestLocked(ns);
  if (record == nullptr) return std::nullopt;
  return *record;
}

std::optional<RecordUsage> ClusterCache::UsageRecord(std::string_view ns,
                                                     std::string_view bookKnownAt) const {
  std::lock_guard lock(mu_);
  const GpuQuotaRecord* record = NewestLocked(ns);
  if (record == nullptr) return std::nullopt;
  const std::string version = record->resourceVersion();
  if (!version.empty() && version == bookKnownAt) {
    return RecordUsage{record->ns, version, nlohmann::json(), record->charges, true};
  }
  return UsageOfRecord(*record);
}

std::vector<RecordUsage> ClusterCache::UsageRecords() const {
  std::lock_guard lock(mu_);
  std::set<std::string, std::less<>> namespaces;
  for (const auto& [ns, record] : records_) namespaces.insert(ns);
  for (const auto& [ns, record] : written_) namespaces.insert(ns);
  std::vector<RecordUsage> out;
  for (const std::string& ns : namespaces) out.push_back(UsageOfRecord(*NewestLocked(ns)));
  return out;
}

std::map<std::string, ClusterCache::NamespaceState, std::less<>> ClusterCache::Snapshot() const {
  std::lock_guard lock(mu_);
  std::map<std::string, NamespaceState, std::less<>> out;
  for (const auto& [ns, record] : records_) out[ns].record = record;
  for (const auto& [ns, record] : written_) out[ns].record = record;
  for (const auto& [ns, pods] : pods_) out[ns].pods = pods;
  for (auto& [ns, state] : out) state.hard = LimitsLocked(ns);
  return out;
}

PodMap ClusterCache::Pods(std::string_view ns) const {
  std::lock_guard lock(mu_);
  auto pods = pods_.find(ns);
  return pods == pods_.end() ? PodMap{} : pods->second;
}

void ClusterCache::ForgetGonePods(WallClock::time_point before) {
  std::lock_guard lock(mu_);
  for (auto ns = pods_.begin(); ns != pods_.end();) {
    std::erase_if(ns->second, [before](const auto& entry) {
      WallClock::time_point gone = entry.second.goneSince;
      return gone != WallClock::time_point{} && gone < before;
    });
    ns = ns->second.empty() ? pods_.erase(ns) : std::next(ns);
  }
}

std::vector<quota::NamespaceUsage> ClusterCache::Usage(std::string_view onlyNs) const {
  std::lock_guard lock(mu_);
  std::set<std::string, std::less<>> namespaces;
  for (const auto& [ns, limits] : config_.limits) namespaces.insert(ns);
  for (const auto& [ns, quotas] : quotas_) namespaces.insert(ns);
  for (const auto& [ns, record] : records_) {
    if (!record.charges.empty()) namespaces.insert(ns);
  }
  for (const auto& [ns, record] : written_) {
    if (!record.charges.empty()) namespaces.insert(ns);
  }
  std::vector<quota::NamespaceUsage> out;
  for (const std::string& ns : namespaces) {
    if (!onlyNs.empty() && ns != onlyNs) continue;
    quota::NamespaceUsage usage{ns, {}};
    for (const auto& [resource, hard] : LimitsLocked(ns)) usage.resources[resource].hard = hard;
    if (const GpuQuotaRecord* record = NewestLocked(ns)) {
      for (const auto& [resource, used] : record->Used()) usage.resources[resource].used = used;
    }
    out.push_back(std::move(usage));
  }
  return out;
}

}  // namespace gpugate::cluster
