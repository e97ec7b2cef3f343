#include "cluster/charge_batch.h"

#include "quota/limit_check.h"

namespace gpugate::cluster {
namespace {

using nlohmann::json;
using quota::ReserveOutcome;

// What one charge adds to the written record: its list entry, and the pod's key when it is the
// first charge under that name (`"name":[...],`). Exact for the entry; the derived used and
// summaries may grow by a few bytes more, which the bound's margin below etcd's limit absorbs.
size_t ChargeBytes(std::string_view name, const RecordedCharge& charge, bool firstUnderName) {
  size_t bytes =
      EncodeCharge(charge).dump(-1, ' ', false, json::error_handler_t::replace).size() + 1;
  if (firstUnderName)
    bytes += json(name).dump(-1, ' ', false, json::error_handler_t::replace).size() + 3;
  return bytes;
}

size_t CountCharges(const ChargeMap& charges) {
  size_t n = 0;
  for (const auto& [name, list] : charges) n += list.size();
  return n;
}

// Where a batch stands after the ops applied so far. Invariants, kept by every op:
//   used  == out.next.Used() (saturated sums), so a limit check never re-adds the record;
//   bytes == context.recordBytes + ChargeBytes(every entry added) - ChargeBytes(every entry
//            removed): the written size, exact for the entries; the derived used, hard and
//            summaries may add a few bytes more, which EvaluateBatch measures afterwards;
//   bytes <= limit after every charge added (a charge that would break it is kRecordFull).
struct BatchState {
  BatchEvaluation& out;
  size_t bytes;
  quota::Amounts used;
  std::vector<DroppedCharge> dropped;  // every charge a release removed, for the book
};

struct Applier {
  const LedgerOp& op;
  const BatchContext& context;
  size_t limit;
  BatchState& state;

  quota::ReserveResult Charge() {
    BatchEvaluation& out = state.out;
    size_t& bytes = state.bytes;
    quota::Amounts& used = state.used;
    GpuQuotaRecord& record = out.next;
    if (record.Holds(op.pod.name, op.pod.uid)) return {ReserveOutcome::kAlreadyCharged};
    std::string excess = quota::ExceededMessage(op.pod.ns, context.hard, used, op.amounts);
    if (!excess.empty() && op.enforce) return {ReserveOutcome::kExceeded, std::move(excess)};
    RecordedCharge charge{op.pod.uid, context.now, op.amounts};
    size_t grows = ChargeBytes(op.pod.name, charge, !record.charges.contains(op.pod.name));
    if (limit > 0 && bytes + grows > limit) {
      return {ReserveOutcome::kRecordFull,
              RecordFullMessage(op.pod.ns, CountCharges(record.charges), bytes,
                                context.maxRecordBytes)};
    }
    quota::ReserveResult charged{
        excess.empty() ? ReserveOutcome::kCharged : ReserveOutcome::kChargedOverLimit, excess};
    if (!op.dryRun) {
      for (const auto& [resource, milli] : op.amounts) {
        int64_t& total = used[resource];
        if (__builtin_add_overflow(total, milli, &total)) total = INT64_MAX;  // as Used() does
      }
      record.charges[op.pod.name].push_back(std::move(charge));
      bytes += grows;
      out.changed = true;
    }
    return charged;
  }

  bool Release() {
    BatchEvaluation& out = state.out;
    size_t& bytes = state.bytes;
    auto held = out.next.charges.find(op.pod.name);
    if (held == out.next.charges.end()) return false;
    for (size_t i = 0; i < held->second.size(); ++i) {
      size_t shrinks = ChargeBytes(held->first, held->second[i], i == 0);
      bytes = bytes > shrinks ? bytes - shrinks : 0;
      state.dropped.push_back({held->first, held->second[i]});
    }
    out.next.charges.erase(held);
    state.used = out.next.Used();
    out.changed = true;
    return true;
  }
};

}  // namespace

namespace {

// `limit`: the bound the charges' entries are held to (maxRecordBytes, or less to leave room for
// the derived fields).
// `estimate`: what the record's size comes to by the entries' count.
BatchEvaluation EvaluateOnce(const GpuQuotaRecord& record, std::span<const LedgerOp* const> ops,
                             const BatchContext& context, size_t limit,
                             size_t* estimate = nullptr) {
  BatchEvaluation out{.next = record};
  out.results.reserve(ops.size());
  BatchState state{.out = out, .bytes = context.recordBytes, .used = record.Used()};
  for (const LedgerOp* op : ops) {
    Applier apply{*op, context, limit, state};
    LedgerOpResult result;
    if (op->kind == LedgerOp::Kind::kRelease) {
      result.released = apply.Release();
    } else {
      result.reserve = apply.Charge();
      // Only a charge actually added is proven by the write; every other answer needs the
      // record to have been the latest.
      const bool added = result.reserve.outcome == ReserveOutcome::kCharged ||
                         result.reserve.outcome == ReserveOutcome::kChargedOverLimit;
      out.needsFreshRead |= op->dryRun || !added;
    }
    out.results.push_back(std::move(result));
  }
  if (context.book && !state.dropped.empty()) {
    static const PodMap kNoPods;
    out.problems = AccrueDropped(
        out.next, state.dropped, context.pods ? *context.pods : kNoPods, context.now, *context.book,
        BookRoom(out.next, context.name, context.hard, context.maxRecordBytes));
  }
  if (estimate) *estimate = state.bytes;
  return out;
}

}  // namespace

BatchEvaluation EvaluateBatch(const GpuQuotaRecord& record, std::span<const LedgerOp* const> ops,
                              const BatchContext& context) {
  size_t estimate = 0;
  BatchEvaluation out = EvaluateOnce(record, ops, context, context.maxRecordBytes, &estimate);
  if (context.maxRecordBytes == 0 || !out.changed) return out;
  // Charges are counted by their entries; the derived used and summaries can grow by a few
  // bytes more. Measure the record, and if that took it past the bound, redo the batch with the
  // entries held below it by what the derived fields grew.
  size_t bytes = RecordBytes(out.next, context.name, context.hard);
  if (bytes <= context.maxRecordBytes) return out;
  size_t grown = bytes > estimate ? bytes - estimate : 0;
  return EvaluateOnce(record, ops, context,
                      context.maxRecordBytes - std::min(grown, context.maxRecordBytes - 1));
}

size_t RecordBytes(const GpuQuotaRecord& record, std::string_view name,
                   const quota::Amounts& hard) {
  return EncodeGpuQuota(record, name, hard)
      .dump(-1, ' ', false, json::error_handler_t::replace)
      .size();
}

std::string RecordFullMessage(std::string_view ns, size_t charges, size_t recordBytes,
                              size_t maxRecordBytes) {
  return "gpugate cannot record another GPU pod in " + std::string(ns) + ": its GPUQuota holds " +
         std::to_string(charges) + " charges in " + std::to_string(recordBytes) +
         " bytes, and one more would pass cluster.maxGpuQuotaBytes (" +
         std::to_string(maxRecordBytes) +
         "; a Kubernetes object must stay under etcd's 1.5 MiB request limit). Room returns as " +
         "the namespace's GPU pods finish or are deleted";
}

}  // namespace gpugate::cluster
