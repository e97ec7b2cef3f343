// The namespace labels `serve` reads in cluster mode (gpugate.io/mode, gpugate.io/mutate;
// docs/rules.md, "Modes"): a cluster::NamespaceWatch on a connection pool of its own, so its
// long-lived watch never holds a connection the quota ledger's charges wait for. (Stopping it
// ends only its own watch: each watch has its own stop token, cluster/api_client.h.)
#pragma once

#include <memory>

#include "cluster/kube_client.h"
#include "cluster/namespace_watch.h"
#include "common/result.h"
#include "config/config.h"

namespace gpugate::cli {

class NamespaceSource {
 public:
  // Starts the watch in cluster mode; nullptr (not an error) when cluster mode is off. Errors
  // name the setting at fault.
  static Result<std::unique_ptr<NamespaceSource>> Open(const config::Config& config);
  ~NamespaceSource();  // stops the watch before its client goes

  const policy::NamespaceLabelSource& labels() const { return *watch_; }

 private:
  NamespaceSource() = default;
  std::unique_ptr<cluster::KubeClient> client_;
  std::unique_ptr<cluster::NamespaceWatch> watch_;
};

}  // namespace gpugate::cli
