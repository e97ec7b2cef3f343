#include "cluster/cluster_ledger.h"

#include <condition_variable>
#include <optional>

#include "cluster/cluster_cache.h"
#include "cluster/gpu_quota_record.h"
#include "cluster/reconcile.h"
#include "common/deadline_mutex.h"
#include "quota/limit_check.h"

namespace gpugate::cluster {
namespace {

using nlohmann::json;

constexpr const char* kNotSynced =
    "gpugate has not finished its first sync with the Kubernetes API; GPU pods in namespaces "
    "with a quota are refused until it has";

// "PUT /apis/...: HTTP 403: <the Status object's message>", or the transport's reason; for an
// answer tried more than once, how many times.
std::string ApiError(std::string_view method, const std::string& path,
                     const RetriedAnswer& retried) {
  const Result<HttpResult>& answer = retried.answer;
  std::string out = std::string(method) + " " + path + ": ";
  if (!answer) return out + answer.error().message;
  out += "HTTP " + std::to_string(answer->status);
  json status = json::parse(answer->body, nullptr, false);
  if (status.is_object() && status.contains("message") && status["message"].is_string()) {
    out += ": " + status["message"].get<std::string>();
  }
  if (retried.tries > 1 && IsTransient(answer)) {
    out += " (the same after " + std::to_string(retried.tries) + " tries; no time left to retry)";
  } else if (retried.tries > 1) {
    out += " (at try " + std::to_string(retried.tries) + ")";
  }
  return out;
}

using Deadline = ApiRetry::SteadyClock::time_point;

// A write's outcome that is not an error: it happened, or someone else wrote first.
enum class Written { kDone, kConflict };

}  // namespace

struct ClusterLedger::State {
  State(ClusterLedger& ledger, KubeClient& kube)
      : client(kube),
        options(ledger.options_),
        cache(
            ledger.config_, ledger.settings_, ledger.options_.gpuQuotaName,
            [this] { return Now(); }, [this] { Wake(); }),
        pods(kube, "/api/v1/pods", Reporting(cache.PodHandlers())),
        quotas(kube, "/api/v1/resourcequotas", Reporting(cache.ResourceQuotaHandlers())),
        records(kube, std::string(kGpuQuotaCollection), Reporting(cache.RecordHandlers())) {}

  InformerHandlers Reporting(InformerHandlers handlers) const {
    handlers.onError = options.onError;
    return handlers;
  }
  void Report(const std::string& message) const {
    if (options.onError) options.onError(message);
  }

  Clock::time_point Now() const { return options.clock ? options.clock() : Clock::now(); }
  std::string RecordPath(std::string_view ns) const {
    return GpuQuotaPath(ns, options.gpuQuotaName);
  }

  // Serialises this replica's writes to one namespace's record, so its own admissions do not
  // race each other into conflicts; other replicas are kept out by the resourceVersion alone.
  DeadlineMutex& NamespaceLock(std::string_view ns) {
    std::lock_guard lock(locksMu);
    auto it = namespaceLocks.find(ns);
    if (it == namespaceLocks.end()) {
      it = namespaceLocks.emplace(std::string(ns), std::make_unique<DeadlineMutex>()).first;
    }
    return *it->second;
  }

  // The namespace's lock, or an error once `deadline` has passed waiting for it (the writes
  // ahead of this one are waiting on a slow API server).
  Result<std::unique_lock<DeadlineMutex>> LockNamespace(std::string_view ns, Deadline deadline,
                                                        std::string_view what) {
    std::unique_lock lock(NamespaceLock(ns), std::defer_lock);
    if (lock.try_lock_until(ClientDeadline(deadline))) return lock;
    return Fail("no time left " + std::string(what) + ": other charges to " + RecordPath(ns) +
                " held it the whole time, waiting on the Kubernetes API");
  }

  // `deadline` is on the retry policy's clock (a test's fake one); the client's is steady time.
  KubeClient::Deadline ClientDeadline(Deadline deadline) const {
    if (deadline == KubeClient::kNoDeadline || !options.retry.clock) return deadline;
    return std::chrono::steady_clock::now() + (deadline - options.retry.Now());
  }

  void Wake() {
    {
      std::lock_guard lock(wakeMu);
      woken = true;
    }
    wakeCv.notify_all();
  }

  // The record as the API has it now; an absent one (404) has a null object.
  // Transient answers are retried until `deadline`.
  Result<GpuQuotaRecord> ReadRecord(std::string_view ns, Deadline deadline) {
    std::string path = RecordPath(ns);
    RetriedAnswer retried = CallWithRetries(
        options.retry, deadline, [&] { return client.Get(path, ClientDeadline(deadline)); });
    const Result<HttpResult>& answer = retried.answer;
    if (answer && answer->status == 404) return GpuQuotaRecord{.ns = std::string(ns)};
    if (!answer || answer->status != 200) return Fail(ApiError("GET", path, retried));
    json object = json::parse(answer->body, nullptr, false);
    if (!object.is_object()) return Fail("GET " + path + ": the answer is not a JSON object");
    GpuQuotaRecord record = DecodeGpuQuota(object);
    record.ns = std::string(ns);
    return record;
  }

  // PUTs `record` guarded by its resourceVersion (POSTs it when it does not exist yet), with the
  // derived used, hard and summaries. What the API answers becomes the cache's copy. A 409 (a
  // newer version, or a create that lost the race) and a 404 (deleted meanwhile) are conflicts:
  // read again and redo. Transient answers are retried until `deadline`: the write is guarded, so
  // one that landed before its answer was lost comes back as a conflict.
  // The reconciler passes no deadline and `retry` false: its next pass is its retry.
  Result<Written> Write(const GpuQuotaRecord& record, const quota::Amounts& hard, Deadline deadline,
                        bool retry = true) {
    std::string body = EncodeGpuQuota(record, options.gpuQuotaName, hard)
                           .dump(-1, ' ', false, json::error_handler_t::replace);
    bool create = !record.exists();
    std::string path = create ? GpuQuotaCollectionPath(record.ns) : RecordPath(record.ns);
    Deadline retryUntil = retry ? deadline : options.retry.Now();
    RetriedAnswer retried = CallWithRetries(options.retry, retryUntil, [&] {
      return create ? client.Post(path, body, ClientDeadline(deadline))
                    : client.Put(path, body, ClientDeadline(deadline));
    });
    const Result<HttpResult>& answer = retried.answer;
    if (answer && (answer->status == 409 || answer->status == 404)) return Written::kConflict;
    if (!answer || (answer->status != 200 && answer->status != 201)) {
      return Fail(ApiError(create ? "POST" : "PUT", path, retried));
    }
    json object = json::parse(answer->body, nullptr, false);
    if (object.is_object()) {
      GpuQuotaRecord written = DecodeGpuQuota(object);
      written.ns = record.ns;
      cache.StoreRecord(std::move(written));
    }
    return Written::kDone;
  }

  // One read-check-write of Reserve on `record`; nullopt: try again on a fresh read. Only a
  // fresh read or a successful guarded write decides: an answer the cache's copy alone would
  // give (exceeded, already charged, a dry run) is checked again against the API, so a stale
  // cache never refuses a pod that fits.
  Result<std::optional<quota::ReserveResult>> TryReserve(GpuQuotaRecord record, bool fresh,
                                                         const quota::PodRef& pod,
                                                         const quota::Amounts& amounts,
                                                         const quota::Amounts& hard, bool dryRun,
                                                         bool enforce, Deadline deadline) {
    using quota::ReserveOutcome;
    using Answer = std::optional<quota::ReserveResult>;
    if (!record.problem.empty()) {
      if (!fresh) return Answer{};
      return Fail(RecordPath(pod.ns) + " cannot be read: " + record.problem);
    }
    if (record.Holds(pod.name, pod.uid)) {
      return fresh ? Answer{{ReserveOutcome::kAlreadyCharged}} : Answer{};
    }
    std::string excess = quota::ExceededMessage(pod.ns, hard, record.Used(), amounts);
    if (!excess.empty() && enforce) {
      return fresh ? Answer{{ReserveOutcome::kExceeded, excess}} : Answer{};
    }
    quota::ReserveResult charged{
        excess.empty() ? ReserveOutcome::kCharged : ReserveOutcome::kChargedOverLimit, excess};
    if (dryRun) return fresh ? Answer{charged} : Answer{};
    record.charges[pod.name].push_back(RecordedCharge{pod.uid, Now(), amounts});
    Result<Written> written = Write(record, hard, deadline);
    if (!written) return std::unexpected(written.error());
    if (*written == Written::kConflict) return Answer{};
    return Answer{charged};
  }

  // Reserve's loop: the watched copy first, then fresh reads after each conflict.
  Result<quota::ReserveResult> ReserveWithRetries(const quota::PodRef& pod,
                                                  const quota::Amounts& amounts,
                                                  const quota::Amounts& hard, bool dryRun,
                                                  bool enforce, Deadline deadline) {
    auto lock = LockNamespace(pod.ns, deadline, "to charge " + pod.ns + "/" + pod.name);
    if (!lock) return std::unexpected(lock.error());
    std::optional<GpuQuotaRecord> cached = cache.Record(pod.ns);
    for (int attempt = 0; attempt < options.maxConflictRetries; ++attempt) {
      bool fresh = attempt > 0 || !cached;
      if (attempt > 0 && options.retry.Now() >= deadline) {
        return Fail("no time left to charge " + pod.ns + "/" + pod.name + " after " +
                    std::to_string(attempt) + " conflicting updates of " + RecordPath(pod.ns));
      }
      Result<GpuQuotaRecord> record = fresh ? ReadRecord(pod.ns, deadline) : std::move(*cached);
      if (!record) return std::unexpected(record.error());
      auto answer =
          TryReserve(std::move(*record), fresh, pod, amounts, hard, dryRun, enforce, deadline);
      if (!answer) return std::unexpected(answer.error());
      if (*answer) return **answer;
    }
    return Fail("gave up charging " + pod.ns + "/" + pod.name + " after " +
                std::to_string(options.maxConflictRetries) + " conflicting updates of " +
                RecordPath(pod.ns));
  }

  // One read-modify-write of Release; nullopt: try again on a fresh read.
  Result<std::optional<bool>> TryRelease(GpuQuotaRecord record, bool fresh,
                                         const quota::PodRef& pod, Deadline deadline) {
    if (!record.problem.empty()) {
      if (!fresh) return std::optional<bool>{};
      return Fail(RecordPath(pod.ns) + " cannot be read: " + record.problem);
    }
    auto held = record.charges.find(pod.name);
    if (held == record.charges.end()) return std::optional<bool>(false);
    record.charges.erase(held);
    Result<Written> written = Write(record, cache.Limits(pod.ns), deadline);
    if (!written) return std::unexpected(written.error());
    if (*written == Written::kConflict) return std::optional<bool>{};
    return std::optional<bool>(true);
  }

  // The namespace's record brought in line with the pod watch and the limits; written only when
  // that changes it. A conflict or an API error is left for the next pass, which reads again.
  void ReconcileNamespace(const std::string& ns, ClusterCache::NamespaceState view,
                          const ReconcileContext& context) {
    GpuQuotaRecord record = view.record ? std::move(*view.record) : GpuQuotaRecord{.ns = ns};
    GpuQuotaRecord next = record;
    next.charges = DesiredCharges(record.charges, view.pods, context);
    next.problem.clear();  // a record that cannot be read is rebuilt from the pods
    if (!record.exists() && next.charges.empty()) return;
    if (record.exists() && EncodeGpuQuota(next, options.gpuQuotaName, view.hard) == record.object) {
      return;
    }
    Result<Written> written = Write(next, view.hard, quota::kNoDeadline, /*retry=*/false);
    if (!written) Report("reconciling " + ns + ": " + written.error().message);
  }

  KubeClient& client;
  const ClusterOptions& options;
  ClusterCache cache;
  Informer pods;
  Informer quotas;
  Informer records;

  std::mutex locksMu;
  // guarded by locksMu; one per namespace ever charged here, never erased (a mutex each).
  std::map<std::string, std::unique_ptr<DeadlineMutex>, std::less<>> namespaceLocks;

  std::mutex reconcileMu;  // one reconciliation pass at a time

  std::mutex wakeMu;
  std::condition_variable wakeCv;
  bool woken = false;     // guarded by wakeMu
  bool stopping = false;  // guarded by wakeMu
  std::thread reconciler;
};

ClusterLedger::ClusterLedger(KubeClient& client, quota::QuotaConfig config,
                             policy::Settings settings, ClusterOptions options)
    : client_(client),
      config_(std::move(config)),
      settings_(std::move(settings)),
      options_(std::move(options)),
      state_(std::make_unique<State>(*this, client_)) {}

ClusterLedger::~ClusterLedger() { Stop(); }

void ClusterLedger::Start() {
  state_->pods.Start();
  state_->quotas.Start();
  state_->records.Start();
  {
    std::lock_guard lock(state_->wakeMu);
    state_->stopping = false;
  }
  state_->reconciler = std::thread([this] {
    std::unique_lock lock(state_->wakeMu);
    while (!state_->stopping) {
      state_->woken = false;
      lock.unlock();
      ReconcileOnce();
      lock.lock();
      state_->wakeCv.wait_for(lock, options_.reconcileInterval,
                              [this] { return state_->stopping || state_->woken; });
    }
  });
}

void ClusterLedger::Stop() {
  {
    std::lock_guard lock(state_->wakeMu);
    state_->stopping = true;
  }
  state_->wakeCv.notify_all();
  if (state_->reconciler.joinable()) state_->reconciler.join();
  state_->pods.Stop();
  state_->quotas.Stop();
  state_->records.Stop();
}

bool ClusterLedger::Ready() const {
  return state_->pods.Synced() && state_->quotas.Synced() && state_->records.Synced();
}

Result<quota::ReserveResult> ClusterLedger::Reserve(const quota::ReserveRequest& request) {
  const quota::PodRef& pod = request.pod;
  const quota::Amounts& amounts = request.amounts;
  quota::Deadline deadline = request.deadline;
  if (deadline == quota::kNoDeadline) deadline = options_.retry.Now() + options_.retry.budget;
  for (const auto& [resource, milli] : amounts) {
    if (milli < 0) return Fail("negative charge " + resource + "=" + quota::FormatMilli(milli));
  }
  quota::Amounts hard = state_->cache.Limits(pod.ns);
  // Before the first sync a ResourceQuota may be missing from `hard`: fail closed where a limit
  // is or may be set. An unlimited namespace is charged as usual (the record is read from the
  // API, not the cache), so nothing is lost for it.
  // Unenforced, a limit refuses nothing, so the namespace is treated as one without limits.
  if (request.enforce && !Ready() && (!hard.empty() || !state_->quotas.Synced())) {
    return Fail(kNotSynced);
  }
  Result<quota::ReserveResult> result =
      state_->ReserveWithRetries(pod, amounts, hard, request.dryRun, request.enforce, deadline);
  if (result || (!hard.empty() && request.enforce)) return result;
  // Without a limit nothing can be exceeded, so a charge the API would not take is not worth
  // refusing the pod for: the reconciler records it from the pod watch once the API answers.
  state_->Report("charging " + pod.ns + "/" + pod.name + " (admitted anyway, " +
                 (hard.empty() ? "no limit there" : "its limits not enforced") +
                 "): " + result.error().message);
  return quota::ReserveResult{quota::ReserveOutcome::kCharged};
}

Result<bool> ClusterLedger::Release(const quota::PodRef& pod, quota::Deadline deadline) {
  if (deadline == quota::kNoDeadline) deadline = options_.retry.Now() + options_.retry.budget;
  auto lock = state_->LockNamespace(pod.ns, deadline, "to release " + pod.ns + "/" + pod.name);
  if (!lock) return std::unexpected(lock.error());
  std::optional<GpuQuotaRecord> cached = state_->cache.Record(pod.ns);
  // Trusting the synced cache's "nothing under that name" keeps pod deletes free of API calls.
  // A charge it has not seen yet has no pod either, and the reconciler drops it after the grace.
  if (state_->records.Synced() &&
      (!cached || (cached->problem.empty() && !cached->charges.contains(pod.name)))) {
    return false;
  }
  for (int attempt = 0; attempt < options_.maxConflictRetries; ++attempt) {
    bool fresh = attempt > 0 || !cached;
    if (attempt > 0 && options_.retry.Now() >= deadline) {
      return Fail("no time left to release " + pod.ns + "/" + pod.name + " after " +
                  std::to_string(attempt) + " conflicting updates of " +
                  state_->RecordPath(pod.ns));
    }
    Result<GpuQuotaRecord> record =
        fresh ? state_->ReadRecord(pod.ns, deadline) : std::move(*cached);
    if (!record) return std::unexpected(record.error());
    auto released = state_->TryRelease(std::move(*record), fresh, pod, deadline);
    if (!released) return std::unexpected(released.error());
    if (*released) return **released;
  }
  return Fail("gave up releasing " + pod.ns + "/" + pod.name + " after " +
              std::to_string(options_.maxConflictRetries) + " conflicting updates of " +
              state_->RecordPath(pod.ns));
}

std::vector<quota::NamespaceUsage> ClusterLedger::Usage(std::string_view onlyNs) const {
  return state_->cache.Usage(onlyNs);
}

void ClusterLedger::ReconcileOnce() {
  if (!Ready()) return;
  std::lock_guard pass(state_->reconcileMu);
  ReconcileContext context{state_->Now(), options_.reservationGrace, state_->pods.Watching()};
  // A tombstone older than the grace is no longer needed: a charge for that pod is older still,
  // and the rule for pods the watch does not show drops it.
  state_->cache.ForgetGonePods(context.now - options_.reservationGrace);
  for (auto& [ns, view] : state_->cache.Snapshot()) {
    state_->ReconcileNamespace(ns, std::move(view), context);
  }
}

}  // namespace gpugate::cluster
