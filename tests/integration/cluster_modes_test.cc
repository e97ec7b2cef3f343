// Modes in cluster mode, through a real replica against the stand-in API server: the namespace
// label gpugate.io/mode chooses the mode and a change of label applies without a restart; the
// config's namespace entries win over the label; quota in warn mode is admitted and charged in
// the shared GPUQuota record; gpugate.io/mutate: "false" stops the patch.
#include <gtest/gtest.h>
#include <httplib.h>

#include <nlohmann/json.hpp>

#include "review_builder.h"
#include "standin_cluster.h"

namespace gpugate::testing {
namespace {

using nlohmann::json;

json Pod(const std::string& name, const std::string& ns, const std::string& gpus) {
  json pod = GpuPod(name, json::array({{{"nvidia.com/gpu", gpus}}}));
  pod["metadata"]["namespace"] = ns;
  pod["metadata"]["uid"] = "uid-" + name;
  return pod;
}

// The `response` of the review's answer on `route`.
json Send(GpugateServer& replica, const std::string& route, const json& pod) {
  const std::string ns = pod["metadata"]["namespace"];
  json review =
      MakeReview(pod, {.ns = ns, .uid = "req-" + pod["metadata"]["name"].get<std::string>()});
  auto res = replica.Client()->Post(route, review.dump(), "application/json");
  EXPECT_TRUE(res && res->status == 200) << (res ? res->body : "no answer");
  return res ? json::parse(res->body)["response"] : json();
}

const std::string kLimit =
    R"(spec.containers[0] "c0": nvidia.com/gpu limit "0.5" must be a whole number of GPUs)";
const std::string kRequest =
    R"(spec.containers[0] "c0": nvidia.com/gpu request "0.5" must be a whole number of GPUs)";
// A denial and an audit annotation join a rule's messages; warnings are one each.
const std::string kFractional = kLimit + "; " + kRequest;

TEST(ClusterModes, TheNamespaceLabelSetsTheModeAndAChangeAppliesWithoutARestart) {
  StandInCluster cluster("modes:\n  namespaces:\n    - {pattern: pinned, mode: deny}\n");
  cluster.LabelNamespace("team-a", {{"gpugate.io/mode", "warn"}});
  cluster.LabelNamespace("team-b", json::object());
  cluster.LabelNamespace("audited", {{"gpugate.io/mode", "audit"}});
  cluster.LabelNamespace("pinned", {{"gpugate.io/mode", "warn"}});
  GpugateServer& replica = cluster.AddReplica();

  json warned = Send(replica, "/validate", Pod("frac", "team-a", "0.5"));
  EXPECT_EQ(warned["allowed"], true);
  EXPECT_EQ(warned["warnings"], json::array({kLimit, kRequest}));
  EXPECT_EQ(Send(replica, "/validate", Pod("frac", "team-b", "0.5"))["status"]["message"],
            kFractional)
      << "no label: the config's default, deny";
  EXPECT_EQ(Send(replica, "/validate", Pod("frac", "audited", "0.5"))["auditAnnotations"],
            json({{"whole-units", kFractional}}));
  EXPECT_EQ(Send(replica, "/validate", Pod("frac", "pinned", "0.5"))["allowed"], false)
      << "the config's entry for the namespace wins over its label";

  auto metrics = replica.Client()->Get("/metrics");
  ASSERT_TRUE(metrics);
  for (const char* sample :
       {R"(gpugate_policy_violations_total{rule="whole-units",mode="warn"} 1)",
        R"(gpugate_policy_violations_total{rule="whole-units",mode="audit"} 1)"}) {
    EXPECT_NE(metrics->body.find(std::string(sample) + "\n"), std::string::npos) << sample;
  }

  // kubectl label namespace team-a gpugate.io/mode=deny --overwrite
  cluster.LabelNamespace("team-a", {{"gpugate.io/mode", "deny"}});
  EXPECT_TRUE(Eventually(
      [&] { return Send(replica, "/validate", Pod("frac", "team-a", "0.5"))["allowed"] == false; },
      kClusterWait));
}

TEST(ClusterModes, QuotaInWarnModeIsAdmittedAndChargedInTheSharedRecord) {
  StandInCluster cluster;
  cluster.LabelNamespace("team-a", {{"gpugate.io/mode", "warn"}});
  cluster.LimitGpus("team-a", 1);
  GpugateServer& replica = cluster.AddReplica();

  EXPECT_FALSE(Send(replica, "/validate", Pod("one", "team-a", "1")).contains("warnings"));
  json over = Send(replica, "/validate", Pod("two", "team-a", "1"));
  EXPECT_EQ(over["allowed"], true);
  EXPECT_EQ(over["warnings"],
            json::array({"exceeded quota: team-a, requested: nvidia.com/gpu=1, used: "
                         "nvidia.com/gpu=1, limited: nvidia.com/gpu=1"}));
  json record = cluster.api().Get("/apis/gpugate.io/v1alpha1/namespaces/team-a/gpuquotas/gpugate");
  EXPECT_EQ(record["status"]["usedSummary"], "nvidia.com/gpu=2");
  EXPECT_EQ(record["status"]["hardSummary"], "nvidia.com/gpu=1");
}

TEST(ClusterModes, TheMutateLabelStopsThePatch) {
  StandInCluster cluster;
  cluster.LabelNamespace("team-a", {{"gpugate.io/mutate", "false"}});
  cluster.LabelNamespace("team-b", json::object());
  GpugateServer& replica = cluster.AddReplica();
  json unpatched = Send(replica, "/mutate", Pod("p", "team-a", "1"));
  EXPECT_EQ(unpatched["allowed"], true);
  EXPECT_FALSE(unpatched.contains("patch"));
  EXPECT_TRUE(Send(replica, "/mutate", Pod("p", "team-b", "1")).contains("patch"));
}

}  // namespace
}  // namespace gpugate::testing
