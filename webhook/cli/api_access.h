// How `serve` reaches the Kubernetes API in cluster mode: cluster.kubeconfig (and its context),
// or the pod's service account. Shared by the quota backend and the namespace watch, which each
// keep their own client.
#pragma once

#include "cluster/kube_config.h"
#include "common/result.h"
#include "config/config.h"

namespace gpugate::cli {

// Errors name the setting at fault: "cluster.kubeconfig: ..." or "cluster (in-cluster service
// account): ...".
Result<cluster::KubeConfig> ApiAccess(const config::ClusterConfig& cluster);

}  // namespace gpugate::cli
