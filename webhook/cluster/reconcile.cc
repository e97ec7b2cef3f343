#include "cluster/reconcile.h"

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
    if (!charged) held.push_back(RecordedCharge{pod.uid, context.now, pod.amounts, pod.started});
  }
  return out;
}

}  // namespace gpugate::cluster
