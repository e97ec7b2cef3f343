#include "cli/quota_from_cluster.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "cluster/cluster_ledger.h"
#include "cluster/gpu_quota_record.h"
#include "cluster/kube_client.h"
#include "cluster/kube_config.h"

namespace gpugate::cli {

Result<std::vector<quota::NamespaceUsage>> UsageFromCluster(const std::string& kubeconfig,
                                                            const std::string& context,
                                                            const std::string& ns) {
  auto access = cluster::LoadKubeconfig(kubeconfig, context);
  if (!access) return std::unexpected(access.error());
  cluster::KubeClient client(std::move(*access));
  const std::string path =
      ns.empty() ? std::string(cluster::kGpuQuotaCollection) : cluster::GpuQuotaCollectionPath(ns);
  auto res = client.Get(path);
  if (!res) return Fail("GET " + path + ": " + res.error().message);
  if (res->status != 200) {
    return Fail("GET " + path + ": HTTP " + std::to_string(res->status) + ": " +
                res->body.substr(0, 200));
  }
  nlohmann::json list = nlohmann::json::parse(res->body, nullptr, /*allow_exceptions=*/false);
  if (!list.is_object() || !list.contains("items") || !list["items"].is_array()) {
    return Fail("GET " + path + ": the answer is not a list of GPUQuota objects");
  }
  std::vector<quota::NamespaceUsage> usage;
  for (const nlohmann::json& item : list["items"]) {
    cluster::GpuQuotaRecord record = cluster::DecodeGpuQuota(item);
    if (!record.problem.empty()) return Fail("GPUQuota in " + record.ns + ": " + record.problem);
    usage.push_back(cluster::RecordedUsage(record));
  }
  std::sort(
      usage.begin(), usage.end(),
      [](const quota::NamespaceUsage& a, const quota::NamespaceUsage& b) { return a.ns < b.ns; });
  return usage;
}

}  // namespace gpugate::cli
