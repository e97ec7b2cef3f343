// What a pod is charged: its effective request of every managed resource, as Kubernetes computes
// it for scheduling and quota, plus the weighted figures built from those.
#pragma once

#include "policy/pod_view.h"
#include "policy/settings.h"
#include "quota/amounts.h"
#include "quota/quota_config.h"

namespace gpugate::quota {

// Effective request per managed resource (requests, or limits where a request is absent):
//   max(sum over regular containers + sum over sidecar init containers (restartPolicy Always),
//       max over init containers i of (request of i + sidecars declared before i))
//   + the pod's overhead (spec.overhead, from its RuntimeClass)
// Ephemeral containers are not counted (Kubernetes gives them no resources). Invalid quantities
// are skipped (validation refuses them first). Then every weighted figure in `config.weights`
// is added: sum of weight * effective request. Zero entries are left out. A pod pinned to GPU
// flavors (policy::PodFlavors over `config.flavors`) is charged every entry once more for each
// flavor it may run on, as "nvidia.com/gpu@a100"; an unpinned pod, for none.
Amounts PodCharge(const policy::PodSpecView& pod, const policy::Settings& settings,
                  const QuotaConfig& config);

// False only when PodCharge is empty whatever the config: no container asks for a managed
// resource (policy::IsGpuPod) and the pod's overhead holds none. Cheaper than PodCharge, for
// deciding ahead whether a review will reach the ledger.
bool MayCharge(const policy::PodSpecView& pod, const policy::Settings& settings);

}  // namespace gpugate::quota
