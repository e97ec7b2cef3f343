// Chooses and opens the quota accounting `serve` uses: the local ledger (journaled to
// quota.stateFile) or, with cluster.enabled, the cluster ledger shared through the Kubernetes API.
#pragma once

#include <memory>

#include "cluster/cluster_ledger.h"
#include "cluster/kube_client.h"
#include "common/result.h"
#include "config/config.h"
#include "quota/accounting.h"

namespace gpugate::cli {

class QuotaBackend {
 public:
  // Opens the local ledger (replaying its journal) or connects the cluster ledger and starts its
  // informers (it reports not ready until the first sync). Errors name the setting at fault.
  static Result<std::unique_ptr<QuotaBackend>> Open(const config::Config& config);
  ~QuotaBackend();  // stops the cluster ledger's threads

  quota::Accounting& accounting() { return *accounting_; }

 private:
  QuotaBackend() = default;
  std::unique_ptr<cluster::KubeClient> client_;  // cluster mode only; outlives the ledger
  std::unique_ptr<quota::Accounting> accounting_;
};

}  // namespace gpugate::cli
