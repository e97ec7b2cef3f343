// Cluster mode: a review leaves the serving thread only when it will wait on the API server (a
// GPU pod's charge, a release), counted by gpugate_http_blocking_handoffs_total. Everything else,
// /mutate included, is answered where it was read.
#include <gtest/gtest.h>
#include <httplib.h>

#include <nlohmann/json.hpp>
#include <string>

#include "gpugate_process.h"
#include "review_builder.h"
#include "server_metrics.h"
#include "standin_cluster.h"

namespace gpugate::testing {
namespace {

using nlohmann::json;

constexpr char kRecord[] = "/apis/gpugate.io/v1alpha1/namespaces/team-a/gpuquotas/gpugate";

json Pod(const std::string& name, const json& limits) {
  json pod = GpuPod(name, json::array({limits}));
  pod["metadata"]["uid"] = "uid-" + name;
  return pod;
}

// The answer's response object; null (and a failed test) when there is none.
json Answer(GpugateServer& replica, const std::string& route, const json& review) {
  auto res = replica.Client()->Post(route, review.dump(), "application/json");
  EXPECT_TRUE(res && res->status == 200) << route << " " << review["request"]["uid"];
  return res && res->status == 200 ? json::parse(res->body)["response"] : json();
}

double Handoffs(const GpugateServer& replica) {
  return MetricValue(replica, "gpugate_http_blocking_handoffs_total");
}

TEST(ClusterHandoff, OnlyAChargeOrAReleaseLeavesTheServingThread) {
  StandInCluster cluster;
  cluster.LimitGpus("team-a", 100);
  GpugateServer& replica = cluster.AddReplica();
  const json gpuPod = Pod("trainer", {{"nvidia.com/gpu", "1"}});

  // /mutate of the GPU pod's CREATE: patched on the serving thread, the ledger untouched.
  json mutated = Answer(replica, "/mutate", MakeReview(gpuPod, {.uid = "mutate"}));
  EXPECT_TRUE(mutated.value("allowed", false));
  EXPECT_TRUE(mutated.contains("patch")) << mutated;
  // The same pod relabelled (an UPDATE: nothing to charge), and a pod that asks for no GPU.
  json relabelled = gpuPod;
  relabelled["metadata"]["labels"] = {{"team", "vision"}};
  json update = MakeReview(relabelled, {.operation = "UPDATE", .uid = "update"});
  update["request"]["oldObject"] = gpuPod;
  EXPECT_TRUE(Answer(replica, "/validate", update).value("allowed", false));
  json cpuCreate = MakeReview(Pod("web", json::object()), {.uid = "cpu"});
  EXPECT_TRUE(Answer(replica, "/validate", cpuCreate).value("allowed", false));
  EXPECT_EQ(Handoffs(replica), 0);

  // The GPU pod's CREATE is charged through the API server: one hand-off, and the charge is in
  // the namespace's GPUQuota.
  EXPECT_TRUE(
      Answer(replica, "/validate", MakeReview(gpuPod, {.uid = "create"})).value("allowed", false));
  EXPECT_EQ(Handoffs(replica), 1);
  json charges = cluster.api().Get(kRecord)["status"]["charges"];
  ASSERT_TRUE(charges.contains("trainer")) << charges;
  EXPECT_EQ(charges["trainer"][0]["uid"], "uid-trainer");

  // Its DELETE releases the charge through the API server: the second hand-off.
  json del = MakeReview(nullptr, {.operation = "DELETE", .uid = "delete"});
  del["request"]["name"] = "trainer";
  del["request"]["oldObject"] = gpuPod;
  EXPECT_TRUE(Answer(replica, "/validate", del).value("allowed", false));
  EXPECT_EQ(Handoffs(replica), 2);
  EXPECT_FALSE(cluster.api().Get(kRecord)["status"]["charges"].contains("trainer"));
}

}  // namespace
}  // namespace gpugate::testing
