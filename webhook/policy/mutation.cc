#include "policy/mutation.h"

#include <algorithm>

#include "policy/gpu_demand.h"
#include "policy/resource_values.h"

namespace gpugate::policy {
namespace {

constexpr std::string_view kDefaultScheduler = "default-scheduler";

bool IsExists(const TolerationView& t) { return t.op == "Exists"; }

bool AlreadyCovered(const std::vector<TolerationView>& have, const TolerationView& wanted) {
  return std::any_of(have.begin(), have.end(),
                     [&](const TolerationView& t) { return Covers(t, wanted); });
}

void PlanTolerations(const ManagedPod& managed, MutationPlan& plan) {
  const Settings& settings = managed.settings();
  // Wanted unless the pod's own tolerations or those added so far cover it.
  auto add = [&](TolerationView wanted) {
    if (AlreadyCovered(managed.spec().tolerations, wanted)) return;
    if (AlreadyCovered(plan.addTolerations, wanted)) return;
    plan.addTolerations.push_back(std::move(wanted));
  };
  for (std::string_view name : managed.Requested()) {
    const ManagedResource* r = settings.Find(name);
    if (r && r->toleration) add({.key = name, .op = "Exists", .effect = "NoSchedule"});
  }
  for (const Toleration& t : settings.tolerations) add(t.View());
}

void PlanScheduler(const ManagedPod& managed, MutationPlan& plan) {
  const PodSpecView& pod = managed.spec();
  auto required = RequiredScheduler(managed);
  if (!required || !required->has_value()) return;
  const std::string& want = (*required)->scheduler;
  if (pod.schedulerName.empty() || pod.schedulerName == kDefaultScheduler) {
    if (pod.schedulerName != want) plan.schedulerName = want;
  }
}

// The smallest positive tencent.com/vcuda-core among the containers, and whether any is a share
// of a card (below 100). Limits win over requests, as they must be equal once validated.
struct CoreDemand {
  std::optional<int64_t> smallest;
  bool anyShare = false;
};

CoreDemand VcudaCoreDemand(const PodSpecView& pod) {
  CoreDemand d;
  for (const ContainerView& c : pod.containers) {
    const QuantityText* q = c.Limit(kVcudaCore);
    if (!q) q = c.Request(kVcudaCore);
    if (!q) continue;
    auto whole = ValidWholeQuantity(*q);
    if (!whole) continue;
    auto v = whole->ToInt64();
    if (!v || *v <= 0) continue;
    d.smallest = d.smallest ? std::min(*d.smallest, *v) : *v;
    d.anyShare = d.anyShare || *v < 100;
  }
  return d;
}

void PlanCoreLimit(const PodSpecView& pod, const Settings& settings, MutationPlan& plan) {
  if (settings.coreLimit.mode == CoreLimitMode::kOff) return;
  if (pod.Annotation(kVcudaCoreLimitAnnotation)) return;  // never overwrite the user's choice
  CoreDemand d = VcudaCoreDemand(pod);
  if (!d.anyShare) return;  // whole-card pods need no limit
  int64_t value =
      settings.coreLimit.mode == CoreLimitMode::kFixed ? settings.coreLimit.value : *d.smallest;
  plan.coreLimit = std::to_string(value);
}

}  // namespace

bool Covers(const TolerationView& existing, const TolerationView& wanted) {
  if (!existing.effect.empty() && existing.effect != wanted.effect) return false;
  if (existing.key.empty()) return IsExists(existing);  // tolerates every taint
  if (existing.key != wanted.key) return false;
  if (IsExists(existing)) return true;
  // An Equal toleration covers only the same value, and only a wanted Equal toleration.
  return !IsExists(wanted) && existing.value == wanted.value;
}

MutationPlan PlanMutation(const PodSpecView& pod, const Settings& settings) {
  MutationPlan plan;
  const ManagedPod managed(pod, settings);
  if (!managed.IsGpuPod()) return plan;
  PlanTolerations(managed, plan);
  PlanScheduler(managed, plan);
  PlanCoreLimit(pod, settings, plan);
  return plan;
}

}  // namespace gpugate::policy
