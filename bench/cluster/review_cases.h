// The cases gpugate_cluster_review (review_bench.cc) measures, made from one GPU Pod's CREATE
// review: each a route, the bodies its requests cycle through, and what its answers must say.
// Members keep the review's order (ordered_json), as the API server wrote them: a body with its
// keys sorted would spare the server the sorting real ones cost.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace gpugate::bench {

struct Case {
  std::string name;
  std::string route;
  std::vector<std::string> bodies;
  bool patched = false;  // every answer carries a JSON Patch (none does otherwise)
  int latencyMs = 0;     // the stand-in's write latency while the case runs
  // Charged cases: one body per request, each a pod of its own, in these namespaces (in order,
  // PER_NAMESPACE pods each). Empty for the others.
  std::vector<std::string> namespaces;
};

struct CaseSizes {
  int charges = 1000;          // requests (and pods) of each charged case
  int perNamespace = 50;       // pods charged to each namespace
  std::vector<int> latencies;  // the stand-in's write latency in each charged case, ms
};

// One round's cases, in the order they run: mutate-create, mutate-update, validate-update,
// validate-cpu, then validate-gpu-<N>ms for each latency. `tag` keeps each round's charge
// namespaces apart ("bench-<tag>-<latency>-<k>").
std::vector<Case> CasesFor(const nlohmann::ordered_json& review, const std::string& tag,
                           const CaseSizes& sizes);

}  // namespace gpugate::bench
