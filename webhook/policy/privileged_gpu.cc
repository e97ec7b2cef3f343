// privileged-gpu: a privileged container gets every device node on the host, so in a GPU pod it
// uses all the node's GPUs while the scheduler and the quota counted only the ones requested.
// Only GPU pods are checked: other privileged pods are a matter for Pod Security, not gpugate.
#include "policy/checks.h"
#include "policy/gpu_demand.h"

namespace gpugate::policy {

void CheckPrivilegedGpu(const ManagedPod& managed, std::vector<Violation>& out) {
  const PodSpecView& pod = managed.spec();
  const Settings& settings = managed.settings();
  if (!settings.denyPrivilegedGPU || !managed.IsGpuPod()) return;
  for (const ContainerView& c : pod.containers) {
    if (!c.privileged) continue;
    out.push_back({kPrivilegedGpuRule,
                   pod.ContainerLabel(c) +
                       ": privileged container in a pod that requests GPUs sees every GPU on the "
                       "node",
                   pod.ContainerLabel(c)});
  }
}

}  // namespace gpugate::policy
