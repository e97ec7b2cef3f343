// Quota per GPU model (flavor) through the real server in local mode: a race on a flavor's last
// GPU, default pinning through /mutate then /validate, and the reports (docs/quota.md, "Quota
// per GPU model"). Cluster mode's are in cluster_test.cc.
#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <latch>
#include <nlohmann/json.hpp>
#include <thread>

#include "gpugate_process.h"
#include "review_builder.h"

namespace gpugate::testing {
namespace {

using nlohmann::json;

constexpr const char* kConfig =
    "quota:\n"
    "  flavors:\n"
    "    a100: {nodeLabels: {nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB}}\n"
    "    t4: {nodeLabels: {nvidia.com/gpu.product: Tesla-T4}}\n"
    "  defaultFlavors: {team-b: t4}\n"
    "  namespaces:\n"
    "    team-a: {nvidia.com/gpu: 100, nvidia.com/gpu@a100: 1}\n"
    "    team-b: {nvidia.com/gpu@a100: 1, nvidia.com/gpu@t4: 4}\n";

json PinnedPod(const std::string& name, const std::string& ns, const std::string& product) {
  json pod = GpuPod(name, json::array({{{"nvidia.com/gpu", "1"}}}));
  pod["metadata"]["namespace"] = ns;
  pod["metadata"]["uid"] = "uid-" + name;
  if (!product.empty()) pod["spec"]["nodeSelector"] = {{"nvidia.com/gpu.product", product}};
  return pod;
}

json CreateReview(const json& pod) {
  std::string ns = pod["metadata"]["namespace"];
  return MakeReview(pod, {.ns = ns, .uid = "req-" + pod["metadata"]["name"].get<std::string>()});
}

json Post(const GpugateServer& server, const std::string& route, const json& review) {
  auto res = server.Client()->Post(route, review.dump(), "application/json");
  EXPECT_TRUE(res && res->status == 200);
  return res ? json::parse(res->body)["response"] : json();
}

class FlavorQuota : public ::testing::Test {
 protected:
  FlavorQuota() {
    dir_.Write("gpugate.yaml", kConfig);
    server_ = std::make_unique<GpugateServer>(
        std::vector<std::string>{"--config", dir_.File("gpugate.yaml")});
  }
  TempDir dir_;
  std::unique_ptr<GpugateServer> server_;
};

// 20 creates race for team-a's one A100, beside 10 T4 creates: exactly one A100 pod is admitted
// (the others refused naming the flavor), and the T4 pods, whose flavor has no limit, all are.
TEST_F(FlavorQuota, ConcurrentCreatesForAFlavorsLastGpuAdmitExactlyOne) {
  constexpr int kA100 = 20, kT4 = 10;
  std::latch start(kA100 + kT4);
  std::atomic<int> a100Admitted = 0, t4Admitted = 0, failed = 0;
  std::vector<std::thread> threads;
  for (int i = 0; i < kA100 + kT4; ++i) {
    threads.emplace_back([&, i] {
      bool a100 = i < kA100;
      auto client = server_->Client();
      json review = CreateReview(PinnedPod("p" + std::to_string(i), "team-a",
                                           a100 ? "NVIDIA-A100-SXM4-80GB" : "Tesla-T4"));
      start.arrive_and_wait();
      auto res = client->Post("/validate", review.dump(), "application/json");
      if (!res || res->status != 200) return void(++failed);
      json response = json::parse(res->body)["response"];
      if (response["allowed"].get<bool>()) return void(++(a100 ? a100Admitted : t4Admitted));
      EXPECT_EQ(response["status"]["message"],
                "exceeded quota: team-a, requested: nvidia.com/gpu@a100=1, used: "
                "nvidia.com/gpu@a100=1, limited: nvidia.com/gpu@a100=1");
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failed, 0);
  EXPECT_EQ(a100Admitted, 1);
  EXPECT_EQ(t4Admitted, kT4);
}

// An unpinned GPU pod in team-b is pinned to t4 by /mutate; the patched pod, sent to /validate
// as the API server would send it, is charged to t4. The reports show use per flavor.
TEST_F(FlavorQuota, MutatePinsToTheDefaultFlavorAndValidateChargesIt) {
  json pod = PinnedPod("train", "team-b", "");
  json mutated = Post(*server_, "/mutate", CreateReview(pod));
  ASSERT_TRUE(mutated["allowed"].get<bool>());
  json patch = json::parse(Base64Decode(mutated["patch"].get<std::string>()));
  json patched = pod.patch(patch);
  EXPECT_EQ(patched["spec"]["nodeSelector"], json({{"nvidia.com/gpu.product", "Tesla-T4"}}));
  // Without the pin, /validate refuses it, saying the mutating webhook should have pinned it.
  json unpinned = Post(*server_, "/validate", CreateReview(pod));
  EXPECT_FALSE(unpinned["allowed"].get<bool>());
  EXPECT_NE(unpinned["status"]["message"].get<std::string>().find(
                "gpugate's mutating webhook pins such pods in team-b to t4"),
            std::string::npos)
      << unpinned.dump();
  EXPECT_TRUE(Post(*server_, "/validate", CreateReview(patched))["allowed"].get<bool>());

  auto res = server_->Client()->Get("/quota?namespace=team-b");
  ASSERT_TRUE(res && res->status == 200);
  EXPECT_EQ(json::parse(res->body),
            json::parse(R"({"namespaces":[{"namespace":"team-b","resources":{"nvidia.com/gpu":
              {"used":1}},"flavors":{"a100":{"nvidia.com/gpu":{"used":0,"hard":1}},
              "t4":{"nvidia.com/gpu":{"used":1,"hard":4}}}}]})"));
  auto metrics = server_->Client()->Get("/metrics");
  ASSERT_TRUE(metrics && metrics->status == 200);
  EXPECT_NE(metrics->body.find("gpugate_quota_flavor_used{namespace=\"team-b\",resource=\"nvidia."
                               "com/gpu\",flavor=\"t4\"} 1\n"),
            std::string::npos);
  EXPECT_NE(metrics->body.find("gpugate_quota_flavor_hard{namespace=\"team-b\",resource=\"nvidia."
                               "com/gpu\",flavor=\"t4\"} 4\n"),
            std::string::npos);

  Exit table =
      RunGpugate({"quota", "--server", "https://127.0.0.1:" + std::to_string(server_->port()),
                  "--cacert", server_->caFile(), "-n", "team-b"});
  EXPECT_EQ(table.code, 0) << table.output;
  EXPECT_NE(table.output.find("team-b      nvidia.com/gpu@t4     1      4      25%"),
            std::string::npos)
      << table.output;
}

// docs/quota.md's worked example, step by step: its decisions, messages and table are these.
TEST(FlavorQuotaWorkedExample, TrainingAndInference) {
  TempDir dir;
  dir.Write("gpugate.yaml",
            "quota:\n"
            "  flavors:\n"
            "    a100: {nodeLabels: {nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB}}\n"
            "    t4: {nodeLabels: {nvidia.com/gpu.product: Tesla-T4}}\n"
            "  defaultFlavors:\n"
            "    inference: t4\n"
            "  namespaces:\n"
            "    training: {nvidia.com/gpu: 12, nvidia.com/gpu@a100: 4}\n"
            "    inference: {nvidia.com/gpu@a100: 0}\n");
  GpugateServer server({"--config", dir.File("gpugate.yaml")});
  const std::string a100 = "NVIDIA-A100-SXM4-80GB", t4 = "Tesla-T4";
  auto pod = [](const std::string& name, const std::string& ns, int gpus) {
    json p = GpuPod(name, json::array({{{"nvidia.com/gpu", std::to_string(gpus)}}}));
    p["metadata"]["namespace"] = ns;
    p["metadata"]["uid"] = "uid-" + name;
    return p;
  };
  auto decide = [&](const json& p) {
    json r = Post(server, "/validate", CreateReview(p));
    return r["allowed"].get<bool>() ? std::string("admitted")
                                    : r["status"]["message"].get<std::string>();
  };
  json llm0 = pod("llm-0", "training", 2), llm1 = pod("llm-1", "training", 2);
  llm0["spec"]["nodeSelector"] = llm1["spec"]["nodeSelector"] = {{"nvidia.com/gpu.product", a100}};
  json eval0 = pod("eval-0", "training", 1);
  eval0["metadata"]["annotations"] = {{"nvidia.com/use-gputype", "T4"}};
  json llm2 = pod("llm-2", "training", 1);
  llm2["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] = {
      {"nodeSelectorTerms",
       {{{"matchExpressions",
          {{{"key", "nvidia.com/gpu.product"}, {"operator", "In"}, {"values", {a100, t4}}}}}}}}};
  json sweep0 = pod("sweep-0", "training", 7);
  sweep0["spec"]["nodeSelector"] = {{"nvidia.com/gpu.product", t4}};
  EXPECT_EQ(decide(llm0), "admitted");
  EXPECT_EQ(decide(llm1), "admitted");
  EXPECT_EQ(decide(eval0), "admitted");
  EXPECT_EQ(decide(llm2),
            "exceeded quota: training, requested: nvidia.com/gpu@a100=1, used: "
            "nvidia.com/gpu@a100=4, limited: nvidia.com/gpu@a100=4");
  EXPECT_EQ(decide(sweep0), "admitted");
  EXPECT_EQ(decide(pod("notebook", "training", 1)),
            "spec: namespace training sets GPU quota per model, and this pod does not choose one: "
            "pin it with spec.nodeSelector, a required node affinity or the annotation "
            "nvidia.com/use-gputype to one of a100 (nvidia.com/gpu.product=NVIDIA-A100-SXM4-80GB), "
            "t4 (nvidia.com/gpu.product=Tesla-T4)");

  json serve = pod("serve-0", "inference", 1);
  json mutated = Post(server, "/mutate", CreateReview(serve));
  json pinned = serve.patch(json::parse(Base64Decode(mutated["patch"].get<std::string>())));
  EXPECT_EQ(decide(pinned), "admitted");
  json big = pod("serve-a100", "inference", 1);
  big["spec"]["nodeSelector"] = {{"nvidia.com/gpu.product", a100}};
  EXPECT_EQ(decide(big),
            "exceeded quota: inference, requested: nvidia.com/gpu@a100=1, used: "
            "nvidia.com/gpu@a100=0, limited: nvidia.com/gpu@a100=0");

  Exit table =
      RunGpugate({"quota", "--server", "https://127.0.0.1:" + std::to_string(server.port()),
                  "--cacert", server.caFile(), "-n", "training"});
  EXPECT_EQ(table.code, 0);
  EXPECT_EQ(table.output,
            "NAMESPACE   RESOURCE              USED   HARD   USE%\n"
            "training    nvidia.com/gpu        12     12     100%   [####################]\n"
            "training    nvidia.com/gpu@a100   4      4      100%   [####################]\n"
            "training    nvidia.com/gpu@t4     8      -      -      -\n"
            "TOTAL       nvidia.com/gpu        12     12     100%   [####################]\n"
            "TOTAL       nvidia.com/gpu@a100   4      4      100%   [####################]\n"
            "TOTAL       nvidia.com/gpu@t4     8      -      -      -\n");
}

}  // namespace
}  // namespace gpugate::testing
