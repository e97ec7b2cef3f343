#include "cluster/reconcile.h"

#include <algorithm>

#include "cluster/charge_batch.h"

namespace gpugate::cluster {
namespace {

bool Keep(const std::string& name, const RecordedCharge& charge, const PodMap& pods,
          const ReconcileContext& context) {
  auto pod = pods.find(name);
  if (pod != pods.end() && pod->second.uid == charge.uid) {
    const PodInfo& shown = pod->second;
    // Being deleted, it counts until deletionTimestamp + grace has passed, as in ResourceQuota.
    return !shown.terminal && !(shown.releaseAt && *shown.releaseAt < context.now);
  }
  bool expired = context.now - charge.admitted >= context.reservationGrace;
  return !(expired && context.podsFresh);
}

}  // namespace

ChargeMap DesiredCharges(const ChargeMap& charges, const PodMap& pods,
                         const ReconcileContext& context) {
  ChargeMap out;
  for (const auto& [name, list] : charges) {
    for (const RecordedCharge& charge : list) {
      if (!Keep(name, charge, pods, context)) continue;
      RecordedCharge& kept = out[name].emplace_back(charge);
      auto pod = pods.find(name);
      if (!kept.started && pod != pods.end() && pod->second.uid == kept.uid) {
        kept.started = pod->second.started;
      }
    }
  }
  if (!context.podsFresh || !context.chargeUncharged) return out;
  for (const auto& [name, pod] : pods) {
    if (pod.terminal || pod.deleting) continue;
    std::vector<RecordedCharge>& held = out[name];
    bool charged = false;
    for (const RecordedCharge& c : held) charged = charged || c.uid == pod.uid;
    if (charged) continue;
    // Its usage runs from now at the earliest: this may be a pod whose final DELETE released it
    // (and accrued its usage) before the watch showed it gone, so its time before now may be in
    // the book already.
    std::optional<WallClock::time_point> started = pod.started;
    if (started) started = std::max(*started, context.now);
    held.push_back(RecordedCharge{pod.uid, context.now, pod.amounts, started});
  }
  return out;
}

ReconciledRecord ReconcileRecord(const GpuQuotaRecord& record, const PodMap& pods,
                                 const ReconcileContext& context, const RecordBounds& bounds) {
  ReconciledRecord out{.next = record};
  GpuQuotaRecord& next = out.next;
  next.problem.clear();
  ReconcileContext keepOnly = context;
  keepOnly.chargeUncharged = false;
  next.charges = DesiredCharges(record.charges, pods, keepOnly);
  if (bounds.book) {
    const std::vector<DroppedCharge> dropped = Dropped(record.charges, next.charges);
    out.problems = AccrueDropped(next, dropped, pods, context.now, *bounds.book,
                                 BookRoom(next, bounds.name, bounds.hard, bounds.maxRecordBytes));
  }
  if (!context.chargeUncharged) return out;
  GpuQuotaRecord charged = next;
  charged.charges = DesiredCharges(next.charges, pods, context);
  if (charged.charges == next.charges) return out;
  const size_t bytes = RecordBytes(charged, bounds.name, bounds.hard);
  if (bounds.maxRecordBytes > 0 && bytes > bounds.maxRecordBytes) {
    // No room for the pods running without a charge: write the rest (releases still free room),
    // say so, and add them on a later pass once there is room.
    out.leftUncharged =
        "GPU pods running without a charge are left uncharged: " +
        RecordFullMessage(record.ns, next.charges.size(),
                          RecordBytes(next, bounds.name, bounds.hard), bounds.maxRecordBytes);
    return out;
  }
  out.next = std::move(charged);
  return out;
}

}  // namespace gpugate::cluster
