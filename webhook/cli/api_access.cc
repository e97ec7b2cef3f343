#include "cli/api_access.h"

#include <cstdlib>
#include <filesystem>
#include <sstream>

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

std::string OperatorKubeconfig(const std::string& flag, const char* kubeconfigEnv,
                               const char* home) {
  if (!flag.empty()) return flag;
  std::error_code ec;
  if (kubeconfigEnv != nullptr) {
    std::istringstream paths(kubeconfigEnv);
    for (std::string path; std::getline(paths, path, ':');) {
      if (!path.empty() && std::filesystem::is_regular_file(path, ec)) return path;
    }
  }
  if (home != nullptr && *home != '\0') {
    std::string path = std::string(home) + "/.kube/config";
    if (std::filesystem::is_regular_file(path, ec)) return path;
  }
  return "";
}

Result<cluster::KubeConfig> OperatorAccess(const std::string& kubeconfigFlag,
                                           const std::string& context) {
  std::string path =
      OperatorKubeconfig(kubeconfigFlag, std::getenv("KUBECONFIG"), std::getenv("HOME"));
  if (path.empty()) {
    auto access = cluster::InClusterConfig();
    if (!access) {
      return Fail("no kubeconfig (--kubeconfig, $KUBECONFIG, ~/.kube/config) and not in a pod: " +
                  access.error().message);
    }
    return access;
  }
  return cluster::LoadKubeconfig(path, context);
}

}  // namespace gpugate::cli
