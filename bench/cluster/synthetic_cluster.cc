#include "synthetic_cluster.h"

#include <cstdio>

namespace gpugate::bench {

using nlohmann::json;

namespace {

std::string Namespace(size_t i, size_t perNamespace) {
  return "ns-" + std::to_string(i / perNamespace);
}

}  // namespace

std::string SyntheticCluster::Name(size_t i) {
  char name[32];
  std::snprintf(name, sizeof name, "pod-%07zu", i);
  return name;
}

SyntheticCluster::SyntheticCluster(testing::StandInApiServer& api, json podTemplate,
                                   ClusterShape shape)
    : api_(api), template_(std::move(podTemplate)), shape_(shape) {}

json SyntheticCluster::PodAt(size_t i) const {
  json pod = template_;
  json& meta = pod["metadata"];
  meta["name"] = Name(i);
  meta["namespace"] = Namespace(i, shape_.podsPerNamespace);
  char uid[40];
  std::snprintf(uid, sizeof uid, "00000000-0000-4000-8000-%012zx", i);
  meta["uid"] = uid;
  if (i % shape_.gpuEvery == 0) {
    json& resources = pod["spec"]["containers"][0]["resources"];
    resources["limits"]["nvidia.com/gpu"] = "1";
    resources["requests"]["nvidia.com/gpu"] = "1";
  }
  return pod;
}

std::string SyntheticCluster::PodPath(size_t i) const {
  return "/api/v1/namespaces/" + Namespace(i, shape_.podsPerNamespace) + "/pods/" + Name(i);
}

size_t SyntheticCluster::Load() {
  // One namespace at a time, so CreateMany's collection is the namespace's.
  size_t created = 0;
  for (size_t first = 0; first < shape_.pods; first += shape_.podsPerNamespace) {
    size_t count = std::min(shape_.podsPerNamespace, shape_.pods - first);
    created +=
        api_.CreateMany("/api/v1/namespaces/" + Namespace(first, shape_.podsPerNamespace) + "/pods",
                        count, [&](size_t k) { return PodAt(first + k); });
  }
  return created;
}

size_t SyntheticCluster::GpuPods() const {
  return (shape_.pods + shape_.gpuEvery - 1) / shape_.gpuEvery;
}

size_t SyntheticCluster::GpuNamespaces() const {
  size_t namespaces = 0;
  for (size_t first = 0; first < shape_.pods; first += shape_.podsPerNamespace) {
    size_t end = std::min(first + shape_.podsPerNamespace, shape_.pods);
    size_t firstGpu = (first + shape_.gpuEvery - 1) / shape_.gpuEvery * shape_.gpuEvery;
    namespaces += firstGpu < end ? 1 : 0;
  }
  return namespaces;
}

size_t SyntheticCluster::Touch(size_t count) {
  size_t applied = 0;
  for (size_t n = 0; n < count; ++n) {
    size_t i = n * 7919 % shape_.pods;
    json pod = PodAt(i);
    pod["metadata"]["annotations"]["bench.gpugate.io/touched"] = std::to_string(n);
    json stored = api_.Update(PodPath(i), std::move(pod));
    applied += stored.value("kind", "") == "Pod" ? 1 : 0;
  }
  return applied;
}

}  // namespace gpugate::bench
