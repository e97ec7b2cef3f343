#include "cluster/cluster_ledger.h"

#include <condition_variable>
#include <iterator>
#include <optional>
#include <span>
#include <thread>

#include "cluster/charge_batch.h"
#include "cluster/cluster_cache.h"
#include "cluster/gpu_quota_record.h"
#include "cluster/reconcile.h"
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
  if (std::optional<std::string> message = StatusMessageOf(answer->body)) out += ": " + *message;
  if (retried.tries > 1 && IsTransient(answer)) {
    out += " (the same after " + std::to_string(retried.tries) + " tries; no time left to retry)";
  } else if (retried.tries > 1) {
    out += " (at try " + std::to_string(retried.tries) + ")";
  }
  return out;
}

using Deadline = ApiRetry::SteadyClock::time_point;

// After a conflict: a random share of 5 ms, doubling per conflict up to 100 ms.
constexpr BackoffPolicy kConflictBackoff{.initial = std::chrono::milliseconds(5),
                                         .max = std::chrono::milliseconds(100),
                                         .jitter = BackoffPolicy::Jitter::kFull};

// A write's outcome that is not an error: it happened, or someone else wrote first.
enum class Written { kDone, kConflict };

}  // namespace

// The ledger's machinery: the watched cache and its informers, the group commit and the batch it
// applies, the reconciler's pass. ClusterLedger is its public face (start, stop, the
// quota::Accounting calls) and owns it.
struct ClusterLedger::Engine {
  Engine(ClusterLedger& ledger, ApiClient& kube)
      : client(kube),
        options(ledger.options_),
        cache(
            ledger.config_, ledger.settings_, ledger.options_.gpuQuotaName,
            [this] { return Now(); }, [this] { Wake(); }),
        pods(kube, std::string(kPodCollection), Reporting(cache.PodHandlers())),
        quotas(kube, std::string(kResourceQuotaCollection),
               Reporting(cache.ResourceQuotaHandlers())),
        records(kube, std::string(kGpuQuotaCollection), Reporting(cache.RecordHandlers())) {}

  InformerHandlers Reporting(InformerHandlers handlers) const {
    handlers.onError = options.onError;
    return handlers;
  }
  void Report(const std::string& message) const {
    if (options.onError) options.onError(message);
  }

  WallClock::time_point Now() const { return options.clock ? options.clock() : WallClock::now(); }
  std::string RecordPath(std::string_view ns) const {
    return GpuQuotaPath(ns, options.gpuQuotaName);
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
    RetriedAnswer retried =
        CallWithRetries(options.retry, deadline, [&] { return client.Get(path, deadline); });
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
      return create ? client.Post(path, body, deadline) : client.Put(path, body, deadline);
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

  using BatchResults = std::vector<Result<LedgerOpResult>>;

  static BatchResults FailAll(std::span<const LedgerOp* const> ops, const Error& error) {
    return BatchResults(ops.size(), std::unexpected(error));
  }
  static BatchResults Succeed(std::vector<LedgerOpResult> results) {
    return BatchResults(std::make_move_iterator(results.begin()),
                        std::make_move_iterator(results.end()));
  }

  // A batch whose write landed: what it left unrecorded is reported (only now: a write that
  // conflicted is redone from the fresh record, which decides afresh).
  BatchResults Done(std::string_view ns, BatchEvaluation batch) const {
    for (const std::string& problem : batch.problems) {
      Report("releasing in " + std::string(ns) + ": " + problem);
    }
    return Succeed(std::move(batch.results));
  }

  BatchEvaluation Evaluate(const GpuQuotaRecord& record, std::span<const LedgerOp* const> ops,
                           const quota::Amounts& hard) const {
    const PodMap pods = options.usage ? cache.Pods(record.ns) : PodMap{};
    BatchContext context{.name = options.gpuQuotaName,
                         .hard = hard,
                         .recordBytes = RecordBytes(record, options.gpuQuotaName, hard),
                         .maxRecordBytes = options.maxRecordBytes,
                         .now = Now(),
                         .pods = &pods,
                         .book = options.usage ? &*options.usage : nullptr};
    return EvaluateBatch(record, ops, context);
  }

  // One group-commit batch for namespace `ns` (group_commit.h):
  //   1. from the cache (the watched copy), when it holds a readable record: final when its
  //      guarded write succeeds, or when nothing is written and no answer needs a fresh read;
  //   2. else from a fresh read, redone after each conflict (after a jittered backoff, so replicas
  //      that conflicted do not come back in step), up to maxConflictRetries conflicts in all.
  // An answer is final only from a successful guarded write, or, when nothing is written, from a
  // fresh read (charge_batch.h): a stale cache never refuses a pod that fits. Every try ends by
  // `deadline`. An error fails every op of the batch.
  BatchResults ApplyBatch(std::string_view ns, std::span<const LedgerOp* const> ops,
                          Deadline deadline) {
    const quota::Amounts hard = cache.Limits(ns);
    int conflicts = 0;
    if (std::optional<GpuQuotaRecord> cached = cache.Record(ns);
        cached && cached->problem.empty()) {
      BatchEvaluation batch = Evaluate(*cached, ops, hard);
      if (!batch.changed && !batch.needsFreshRead) return Succeed(std::move(batch.results));
      if (batch.changed) {
        Result<Written> written = Write(batch.next, hard, deadline);
        if (!written) return FailAll(ops, written.error());
        if (*written == Written::kDone) return Done(ns, std::move(batch));
        ++conflicts;
      }
    }
    Backoff backoff(kConflictBackoff, options.retry.jitter);
    for (;; ++conflicts) {
      if (conflicts >= options.maxConflictRetries) {
        return FailAll(ops, Error{"gave up writing " + RecordPath(ns) + " after " +
                                  std::to_string(conflicts) + " conflicting updates"});
      }
      if (conflicts > 0 && !BackOffAfterConflict(backoff, deadline)) {
        return FailAll(ops, Error{"no time left to write " + RecordPath(ns) + " after " +
                                  std::to_string(conflicts) + " conflicting updates"});
      }
      Result<GpuQuotaRecord> record = ReadRecord(ns, deadline);
      if (!record) return FailAll(ops, record.error());
      if (!record->problem.empty()) {
        return FailAll(ops, Error{RecordPath(ns) + " cannot be read: " + record->problem});
      }
      BatchEvaluation batch = Evaluate(*record, ops, hard);
      if (!batch.changed) return Succeed(std::move(batch.results));
      Result<Written> written = Write(batch.next, hard, deadline);
      if (!written) return FailAll(ops, written.error());
      if (*written == Written::kDone) return Done(ns, std::move(batch));
    }
  }

  // Waits backoff's next wait (kConflictBackoff); false (no wait) when that would end at or
  // past `deadline`.
  bool BackOffAfterConflict(Backoff& backoff, Deadline deadline) const {
    auto wait = backoff.Next();
    if (options.retry.Now() + wait >= deadline) return false;
    options.retry.Sleep(wait);
    return true;
  }

  // The namespace's record brought in line with the pod watch and the limits (reconcile.h's
  // ReconcileRecord: starts recorded, finished pods' usage accrued as their charges drop);
  // written only when that changes it. A conflict or an API error is left for the next pass,
  // which reads again and decides afresh, so what it would have accrued is accrued once then.
  void ReconcileNamespace(const std::string& ns, ClusterCache::NamespaceState view,
                          const ReconcileContext& context) {
    GpuQuotaRecord record = view.record ? std::move(*view.record) : GpuQuotaRecord{.ns = ns};
    ReconciledRecord reconciled = ReconcileRecord(record, view.pods, context, Bounds(view.hard));
    if (!reconciled.leftUncharged.empty())
      Report("reconciling " + ns + ": " + reconciled.leftUncharged);
    const GpuQuotaRecord& next = reconciled.next;
    if (!record.exists() && next.charges.empty()) return;
    if (record.exists() && EncodeGpuQuota(next, options.gpuQuotaName, view.hard) == record.object) {
      return;
    }
    Result<Written> written = Write(next, view.hard, quota::kNoDeadline, /*retry=*/false);
    if (!written) {
      Report("reconciling " + ns + ": " + written.error().message);
      return;
    }
    if (*written == Written::kDone) {
      for (const std::string& problem : reconciled.problems)
        Report("reconciling " + ns + ": " + problem);
    }
  }

  RecordBounds Bounds(const quota::Amounts& hard) const {
    return {.name = options.gpuQuotaName,
            .hard = hard,
            .maxRecordBytes = options.maxRecordBytes,
            .book = options.usage ? &*options.usage : nullptr};
  }

  ApiClient& client;
  // The ledger's options_: the ledger owns this engine and declares options_ before engine_, so
  // they are built before it and destroyed after it.
  const ClusterOptions& options;
  ClusterCache cache;
  Informer pods;
  Informer quotas;
  Informer records;

  GroupCommit commits{[this](std::string_view ns, std::span<const LedgerOp* const> ops,
                             Deadline deadline) { return ApplyBatch(ns, ops, deadline); }};

  std::mutex reconcileMu;  // one reconciliation pass at a time

  std::mutex wakeMu;
  std::condition_variable wakeCv;
  bool woken = false;     // guarded by wakeMu
  bool stopping = false;  // guarded by wakeMu
  std::thread reconciler;
};

ClusterLedger::ClusterLedger(ApiClient& client, quota::QuotaConfig config,
                             policy::Settings settings, ClusterOptions options)
    : client_(client),
      config_(std::move(config)),
      settings_(std::move(settings)),
      options_(std::move(options)),
      engine_(std::make_unique<Engine>(*this, client_)) {}

ClusterLedger::~ClusterLedger() { Stop(); }

void ClusterLedger::Start() {
  engine_->pods.Start();
  engine_->quotas.Start();
  engine_->records.Start();
  {
    std::lock_guard lock(engine_->wakeMu);
    engine_->stopping = false;
  }
  engine_->reconciler = std::thread([this] {
    std::unique_lock lock(engine_->wakeMu);
    while (!engine_->stopping) {
      engine_->woken = false;
      lock.unlock();
      ReconcileOnce();
      lock.lock();
      engine_->wakeCv.wait_for(lock, options_.reconcileInterval,
                               [this] { return engine_->stopping || engine_->woken; });
    }
  });
}

void ClusterLedger::Stop() {
  {
    std::lock_guard lock(engine_->wakeMu);
    engine_->stopping = true;
  }
  engine_->wakeCv.notify_all();
  if (engine_->reconciler.joinable()) engine_->reconciler.join();
  engine_->pods.Stop();
  engine_->quotas.Stop();
  engine_->records.Stop();
}

bool ClusterLedger::Ready() const {
  return engine_->pods.Synced() && engine_->quotas.Synced() && engine_->records.Synced();
}

Result<quota::ReserveResult> ClusterLedger::Reserve(const quota::ReserveRequest& request) {
  const quota::PodRef& pod = request.pod;
  const quota::Amounts& amounts = request.amounts;
  quota::Deadline deadline = request.deadline;
  if (deadline == quota::kNoDeadline) deadline = options_.retry.Now() + options_.retry.budget;
  for (const auto& [resource, milli] : amounts) {
    if (milli < 0) return Fail("negative charge " + resource + "=" + quota::FormatMilli(milli));
  }
  quota::Amounts hard = engine_->cache.Limits(pod.ns);
  // Before the first sync a ResourceQuota may be missing from `hard`: fail closed where a limit
  // is or may be set. An unlimited namespace is charged as usual (the record is read from the
  // API, not the cache), so nothing is lost for it.
  // Unenforced, a limit refuses nothing, so the namespace is treated as one without limits.
  if (request.enforce && !Ready() && (!hard.empty() || !engine_->quotas.Synced())) {
    return Fail(kNotSynced);
  }
  LedgerOp op{.kind = LedgerOp::Kind::kCharge,
              .pod = pod,
              .amounts = amounts,
              .dryRun = request.dryRun,
              .enforce = request.enforce};
  Result<LedgerOpResult> result = engine_->commits.Submit(pod.ns, op, deadline);
  if (result) return result->reserve;
  if (!hard.empty() && request.enforce) return std::unexpected(result.error());
  // Without a limit (or one not enforced) nothing is refused for it, so a charge the API would
  // not take is not worth refusing the pod for: the reconciler records it from the pod watch
  // once the API answers.
  engine_->Report("charging " + pod.ns + "/" + pod.name + " (admitted anyway, " +
                  (hard.empty() ? "no limit there" : "its limits not enforced") +
                  "): " + result.error().message);
  return quota::ReserveResult{quota::ReserveOutcome::kAdmittedUncharged};
}

Result<bool> ClusterLedger::Release(const quota::PodRef& pod, quota::Deadline deadline) {
  if (deadline == quota::kNoDeadline) deadline = options_.retry.Now() + options_.retry.budget;
  std::optional<GpuQuotaRecord> cached = engine_->cache.Record(pod.ns);
  // Trusting the synced cache's "nothing under that name" keeps pod deletes free of API calls.
  // A charge it has not seen yet has no pod either, and the reconciler drops it after the grace.
  if (engine_->records.Synced() &&
      (!cached || (cached->problem.empty() && !cached->charges.contains(pod.name)))) {
    return false;
  }
  Result<LedgerOpResult> result =
      engine_->commits.Submit(pod.ns, {.kind = LedgerOp::Kind::kRelease, .pod = pod}, deadline);
  if (!result) return std::unexpected(result.error());
  return result->released;
}

Result<bool> ClusterLedger::ReleaseAt(const quota::PodRef& pod, WallClock::time_point,
                                      quota::Deadline) {
  std::optional<GpuQuotaRecord> cached = engine_->cache.Record(pod.ns);
  return cached && cached->charges.contains(pod.name);
}

WallClock::time_point ClusterLedger::Now() const { return engine_->Now(); }

std::optional<RecordUsage> ClusterLedger::RecordOf(std::string_view ns,
                                                   std::string_view bookKnownAt) const {
  return engine_->cache.UsageRecord(ns, bookKnownAt);
}

std::vector<RecordUsage> ClusterLedger::AllRecords() const { return engine_->cache.UsageRecords(); }

bool ClusterLedger::RecordsSynced() const { return engine_->records.Synced(); }

GroupCommit::Stats ClusterLedger::GroupCommitStats() const { return engine_->commits.stats(); }

std::vector<quota::NamespaceUsage> ClusterLedger::Usage(std::string_view onlyNs) const {
  return engine_->cache.Usage(onlyNs);
}

void ClusterLedger::ReconcileOnce() {
  if (!Ready()) return;
  std::lock_guard pass(engine_->reconcileMu);
  ReconcileContext context{engine_->Now(), options_.reservationGrace, engine_->pods.Watching()};
  // A tombstone older than the grace is no longer needed: a charge for that pod is older still,
  // and the rule for pods the watch does not show drops it.
  engine_->cache.ForgetGonePods(context.now - options_.reservationGrace);
  for (auto& [ns, view] : engine_->cache.Snapshot()) {
    engine_->ReconcileNamespace(ns, std::move(view), context);
  }
}

}  // namespace gpugate::cluster
