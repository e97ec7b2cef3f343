#include "cluster/review_cases.h"

namespace gpugate::bench {
namespace {

using json = nlohmann::ordered_json;

// The GPU pod's CREATE as `name` in namespace `ns`, with a uid of its own.
json Renamed(json review, const std::string& ns, const std::string& name) {
  json& request = review["request"];
  request["uid"] = "req-" + ns + "-" + name;
  request["name"] = name;
  request["namespace"] = ns;
  request["object"]["metadata"]["name"] = name;
  request["object"]["metadata"]["namespace"] = ns;
  request["object"]["metadata"]["uid"] = "uid-" + ns + "-" + name;
  return review;
}

// The same pod relabelled: an UPDATE whose oldObject is the pod as created.
json Relabelled(json review) {
  json& request = review["request"];
  request["operation"] = "UPDATE";
  request["oldObject"] = request["object"];
  request["object"]["metadata"]["labels"]["stage"] = "evaluated";
  request["options"] = {{"kind", "UpdateOptions"}, {"apiVersion", "meta.k8s.io/v1"}};
  return review;
}

// The pod without any nvidia.com/gpu in its containers' requests and limits.
json WithoutGpus(json review) {
  for (json& container : review["request"]["object"]["spec"]["containers"]) {
    json& resources = container["resources"];
    for (const char* part : {"limits", "requests"}) {
      if (resources.contains(part)) resources[part].erase("nvidia.com/gpu");
    }
  }
  return review;
}

Case Charged(const json& review, const std::string& tag, int latency, const CaseSizes& sizes) {
  Case c{.name = "validate-gpu-" + std::to_string(latency) + "ms",
         .route = "/validate",
         .latencyMs = latency};
  for (int i = 0; i < sizes.charges; ++i) {
    if (i % sizes.perNamespace == 0) {
      c.namespaces.push_back("bench-" + tag + "-" + std::to_string(latency) + "-" +
                             std::to_string(i / sizes.perNamespace));
    }
    c.bodies.push_back(Renamed(review, c.namespaces.back(), "trainer-" + std::to_string(i)).dump());
  }
  return c;
}

}  // namespace

std::vector<Case> CasesFor(const json& review, const std::string& tag, const CaseSizes& sizes) {
  const std::string update = Relabelled(review).dump();
  std::vector<Case> cases = {
      {.name = "mutate-create", .route = "/mutate", .bodies = {review.dump()}, .patched = true},
      {.name = "mutate-update", .route = "/mutate", .bodies = {update}},
      {.name = "validate-update", .route = "/validate", .bodies = {update}},
      {.name = "validate-cpu", .route = "/validate", .bodies = {WithoutGpus(review).dump()}},
  };
  for (int latency : sizes.latencies) cases.push_back(Charged(review, tag, latency, sizes));
  return cases;
}

}  // namespace gpugate::bench
