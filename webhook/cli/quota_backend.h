// Chooses and opens the quota accounting `serve` uses: the local ledger (journaled to
// quota.stateFile, keeping GPU-hour usage beside it) or, with cluster.enabled, the cluster ledger
// shared through the Kubernetes API (keeping each namespace's GPU-hour usage in its GPUQuota).
#pragma once

#include <memory>

#include "cluster/cluster_ledger.h"
#include "cluster/cluster_usage.h"
#include "cluster/gpu_budget.h"
#include "cluster/kube_client.h"
#include "common/result.h"
#include "config/config.h"
#include "quota/accounting.h"
#include "usage/usage_keeper.h"

namespace gpugate::cli {

class QuotaBackend {
 public:
  // Opens the local ledger (replaying its journal) or connects the cluster ledger and starts its
  // informers (it reports not ready until the first sync). Errors name the setting at fault.
  static Result<std::unique_ptr<QuotaBackend>> Open(const config::Config& config);
  ~QuotaBackend();  // stops the cluster ledger's threads

  quota::Accounting& accounting() { return *accounting_; }
  // GPU-hour usage (budgets, reports, metrics), in both modes: the local ledger's UsageKeeper,
  // or the cluster ledger's records read through cluster::ClusterUsage.
  usage::UsageView* usage() { return view_; }

 private:
  QuotaBackend() = default;
  std::unique_ptr<cluster::KubeClient> client_;  // cluster mode only; outlives the ledger
  std::unique_ptr<usage::UsageKeeper> usage_;    // local mode; outlives the ledger
  std::unique_ptr<quota::Accounting> accounting_;
  // Cluster mode only: the GPUBudget objects' watch, and the usage read from the ledger's
  // records with them; both go before the ledger and the client.
  std::unique_ptr<cluster::GpuBudgets> budgets_;
  std::unique_ptr<cluster::ClusterUsage> clusterUsage_;
  usage::UsageView* view_ = nullptr;  // usage_ or clusterUsage_
};

}  // namespace gpugate::cli
