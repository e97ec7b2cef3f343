// scheduler: resources such as volcano.sh/gpu-memory are placed by their own scheduler; the
// default scheduler knows nothing of the device sharing behind them. A pod that asks for two
// schedulers cannot be placed, and a pod with nodeName set skips scheduling altogether, so the
// kubelet would start it on a node whose GPU memory nobody accounted for. A pod that names
// another scheduler explicitly is its owner's choice and left alone.
#include "common/strings.h"
#include "policy/checks.h"
#include "policy/gpu_demand.h"

namespace gpugate::policy {

void CheckScheduler(const ManagedPod& managed, std::vector<Violation>& out) {
  const PodSpecView& pod = managed.spec();
  Result<std::optional<SchedulerRequirement>> required = RequiredScheduler(managed);
  if (!required) {
    out.push_back({kSchedulerRule, pod.path + ": " + required.error().message, pod.path});
    return;
  }
  if (!*required || pod.nodeName.empty()) return;
  const SchedulerRequirement& req = **required;
  const std::string_view name = pod.schedulerName;
  if (!name.empty() && name != "default-scheduler" && name != req.scheduler) return;
  out.push_back({kSchedulerRule,
                 pod.path + ".nodeName " + JsonQuote(pod.nodeName) + " bypasses the " +
                     req.scheduler + " scheduler that " + req.source + " requires; remove nodeName",
                 pod.path + ".nodeName"});
}

}  // namespace gpugate::policy
