// The cost of one Pod admission as gpugate's validating webhook pays it: decode the review,
// run every rule, charge the quota ledger; then the pod's DELETE review releases it. Run on an
// empty ledger and on one holding 10,000 limited namespaces and 100,000 charged pods; the ratio
// of the two is the claim ("admission cost stays flat as the ledger grows").
#include <benchmark/benchmark.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "admission/handler.h"
#include "quota/ledger.h"
#include "review/admission_review.h"

namespace gpugate {
namespace {

using nlohmann::json;

constexpr int kRotation = 1024;  // distinct pods the timed loop admits and deletes

std::string Ns(int i) { return "ns-" + std::to_string(i); }

// A typical training pod: two containers, one with a GPU, env, a toleration.
json Pod(const std::string& ns, const std::string& name, const std::string& uid) {
  json gpu = {{"nvidia.com/gpu", "1"}, {"cpu", "8"}, {"memory", "32Gi"}};
  json trainer = {{"name", "trainer"},
                  {"image", "nvcr.io/nvidia/pytorch:24.01-py3"},
                  {"command", {"torchrun", "--nproc_per_node=1", "train.py"}},
                  {"env", {{{"name", "NCCL_DEBUG"}, {"value", "INFO"}}}},
                  {"resources", {{"limits", gpu}, {"requests", gpu}}}};
  json sidecar = {{"name", "log-shipper"},
                  {"image", "fluent-bit:2"},
                  {"resources", {{"requests", {{"cpu", "100m"}}}}}};
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata",
           {{"name", name}, {"namespace", ns}, {"uid", uid}, {"labels", {{"app", "train"}}}}},
          {"spec",
           {{"containers", {trainer, sidecar}},
            {"schedulerName", "default-scheduler"},
            {"tolerations",
             {{{"key", "nvidia.com/gpu"}, {"operator", "Exists"}, {"effect", "NoSchedule"}}}}}}};
}

std::string Review(const std::string& op, const json& pod) {
  json request = {{"uid", "req-" + pod["metadata"]["uid"].get<std::string>()},
                  {"kind", {{"group", ""}, {"version", "v1"}, {"kind", "Pod"}}},
                  {"resource", {{"group", ""}, {"version", "v1"}, {"resource", "pods"}}},
                  {"name", pod["metadata"]["name"]},
                  {"namespace", pod["metadata"]["namespace"]},
                  {"operation", op},
                  {"dryRun", false}};
  request[op == "DELETE" ? "oldObject" : "object"] = pod;
  return json{
      {"apiVersion", "admission.k8s.io/v1"}, {"kind", "AdmissionReview"}, {"request", request}}
      .dump();
}

void BM_AdmitAndDeletePod(benchmark::State& state) {
  const int namespaces = static_cast<int>(state.range(0));
  const int pods = static_cast<int>(state.range(1));
  quota::QuotaConfig config;
  for (int i = 0; i < std::max(namespaces, 1); ++i) {
    config.limits[Ns(i)] = {{"nvidia.com/gpu", 1000 * quota::kMilli}};
  }
  quota::Ledger ledger(config, nullptr);
  if (!ledger.Open()) return state.SkipWithError("cannot open the ledger");
  for (int i = 0; i < pods; ++i) {
    (void)ledger.Reserve({Ns(i % namespaces), "pod-" + std::to_string(i), "u" + std::to_string(i)},
                         {{"nvidia.com/gpu", quota::kMilli}}, false);
  }
  admission::Handler handler(policy::Settings{}, &ledger);
  std::vector<std::pair<std::string, std::string>> bodies;  // create, delete
  size_t bytes = 0;
  for (int i = 0; i < kRotation; ++i) {
    int ns = namespaces == 0 ? 0 : static_cast<int>((i * 7919LL) % namespaces);
    json pod = Pod(Ns(ns), "bench-" + std::to_string(i), "bench-uid-" + std::to_string(i));
    bodies.emplace_back(Review("CREATE", pod), Review("DELETE", pod));
    bytes += bodies.back().first.size();
  }
  size_t i = 0;
  for (auto _ : state) {
    const auto& [create, del] = bodies[i++ % bodies.size()];
    auto admitted = handler.Validate(*review::DecodeReview(create));
    auto deleted = handler.Validate(*review::DecodeReview(del));
    if (admitted.reason != "charged" || deleted.reason != "released") {
      return state.SkipWithError(("unexpected: " + admitted.reason + "/" + deleted.reason).c_str());
    }
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["create_body_bytes"] = static_cast<double>(bytes / bodies.size());
}

BENCHMARK(BM_AdmitAndDeletePod)
    ->ArgNames({"namespaces", "pods"})
    ->Args({0, 0})
    ->Args({10000, 100000});

}  // namespace
}  // namespace gpugate

BENCHMARK_MAIN();
