// How gpugate reaches the Kubernetes API: `serve` in cluster mode through cluster.kubeconfig (and
// its context) or the pod's service account, shared by the quota backend and the namespace watch,
// which each keep their own client; commands an operator runs (`audit`) as kubectl would.
#pragma once

#include "cluster/kube_config.h"
#include "common/result.h"
#include "config/config.h"

namespace gpugate::cli {

// Errors name the setting at fault: "cluster.kubeconfig: ..." or "cluster (in-cluster service
// account): ...".
Result<cluster::KubeConfig> ApiAccess(const config::ClusterConfig& cluster);

// The kubeconfig an operator's command uses, as kubectl finds it: `flag` when given, else the
// first file named in `kubeconfigEnv` ($KUBECONFIG, ':'-separated) that exists, else
// `home`/.kube/config when it exists; "" when there is none (the in-cluster service account).
// Unlike kubectl, gpugate reads one file: it does not merge the files $KUBECONFIG names.
std::string OperatorKubeconfig(const std::string& flag, const char* kubeconfigEnv,
                               const char* home);

// The API access of OperatorKubeconfig(flag, $KUBECONFIG, $HOME), in `context` (or its
// current-context), or of the in-cluster service account. Errors name the file.
Result<cluster::KubeConfig> OperatorAccess(const std::string& kubeconfigFlag,
                                           const std::string& context);

}  // namespace gpugate::cli
