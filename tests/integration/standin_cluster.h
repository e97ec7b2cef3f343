// Test support: a stand-in Kubernetes API server (tests/standin/) and `gpugate serve` replicas
// in cluster mode against it, each reaching it through a kubeconfig with the stand-in's token.
#pragma once

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "gpugate_process.h"
#include "standin/standin.h"
#include "support/eventually.h"

namespace gpugate::testing {

struct StandInClusterOptions {
  // The replicas' cluster-section keys for timing: by default they reconcile every second, with
  // a two-second reservation grace.
  std::string timing = "  reservationGrace: 2s\n  reconcileInterval: 1s\n";
  // YAML appended to the replicas' config after its cluster section (top-level keys such as
  // modes:).
  std::string configExtra;
  StandInApiServer::Options api;  // the stand-in's behaviour; its certificate is filled in
};

class StandInCluster {
 public:
  explicit StandInCluster(const std::string& configExtra = "")
      : StandInCluster(StandInClusterOptions{.configExtra = configExtra}) {}
  explicit StandInCluster(StandInClusterOptions options);

  // Starts a replica and waits (up to 15 s) until it reports ready: its quota ledger and its
  // namespace watch have made their first list.
  GpugateServer& AddReplica();
  // Starts a replica with the config file `configName` of dir(), without waiting for it.
  GpugateServer& StartReplica(const std::string& configName);

  StandInApiServer& api() { return *api_; }
  // The kubeconfig that reaches the stand-in (as the replicas do), for commands run against it.
  std::string kubeconfig() const { return dir_.File("kubeconfig"); }
  // Where the certificates, the kubeconfig and the replicas' gpugate.yaml are.
  const TempDir& dir() const { return dir_; }
  // Every replica started, in order; a test may kill and remove one.
  std::vector<std::unique_ptr<GpugateServer>>& replicas() { return replicas_; }

  // Creates the Namespace `name` with `labels` (and kubernetes.io/metadata.name, as the API
  // server adds it), or replaces the labels of one that exists.
  void LabelNamespace(const std::string& name, nlohmann::json labels);
  // A ResourceQuota "gpus" in `ns` with requests.nvidia.com/gpu: `gpus`.
  void LimitGpus(const std::string& ns, int gpus);

 private:
  TempDir dir_;
  std::unique_ptr<StandInApiServer> api_;
  std::vector<std::unique_ptr<GpugateServer>> replicas_;
};

// Watches and reconciliation are asynchronous, so a bounded wait for an observable outcome is
// the honest check: Eventually (tests/support/eventually.h), for up to kClusterWait.
inline constexpr std::chrono::seconds kClusterWait{15};

}  // namespace gpugate::testing
