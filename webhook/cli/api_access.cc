#include "cli/api_access.h"

namespace gpugate::cli {

Result<cluster::KubeConfig> ApiAccess(const config::ClusterConfig& cluster) {
  auto access = cluster.kubeconfig.empty()
                    ? cluster::InClusterConfig()
                    : cluster::LoadKubeconfig(cluster.kubeconfig, cluster.context);
  if (!access) {
    return Fail((cluster.kubeconfig.empty() ? "cluster (in-cluster service account): "
                                            : "cluster.kubeconfig: ") +
                access.error().message);
  }
  return access;
}

}  // namespace gpugate::cli
