// A cluster's pods in the stand-in API server, for the cluster benchmark: `pods` copies of a
// realistic Pod, 100 to a namespace, one in `gpuEvery` asking for one nvidia.com/gpu, all
// running; and watch events made by changing pods. The Pod (bench/cluster/pod.json, 4.7 KB as
// compact JSON) is a Deployment's pod as `kubectl get pod -o json` shows one: managed fields,
// owner reference, probes, a projected service-account volume, status with conditions; its names,
// addresses and digests are made up for the benchmark.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "standin/standin.h"

namespace gpugate::bench {

struct ClusterShape {
  size_t pods = 10000;
  size_t gpuEvery = 50;  // 2% GPU pods
  size_t podsPerNamespace = 100;
};

class SyntheticCluster {
 public:
  SyntheticCluster(testing::StandInApiServer& api, nlohmann::json podTemplate, ClusterShape shape);

  // Creates every pod; returns how many were created.
  size_t Load();
  // GPUs the replica should see charged once it has synced (every GPU pod runs).
  size_t GpuPods() const;
  // Namespaces holding at least one GPU pod: one GPUQuota record each, once reconciled.
  size_t GpuNamespaces() const;
  // `count` watch events: pod i * 7919 mod N (a spread over the whole cluster, GPU pods in their
  // share) gets a new annotation. Returns how many updates the stand-in applied.
  size_t Touch(size_t count);
  // Pod i's name.
  static std::string Name(size_t i);

 private:
  nlohmann::json PodAt(size_t i) const;
  std::string PodPath(size_t i) const;

  testing::StandInApiServer& api_;
  nlohmann::json template_;
  ClusterShape shape_;
};

}  // namespace gpugate::bench
