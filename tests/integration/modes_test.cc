// Modes through the real server in local mode: what the API server gets back for rules in deny,
// warn and audit mode (warnings, audit annotations), quota in warn mode (admitted and charged),
// mutation switched off for a namespace, and what /metrics and the log count.
#include <gtest/gtest.h>
#include <httplib.h>

#include <nlohmann/json.hpp>

#include "gpugate_process.h"
#include "review_builder.h"

namespace gpugate::testing {
namespace {

using nlohmann::json;

constexpr char kConfig[] = R"(modes:
  default: deny
  rules:
    privileged-gpu: warn
    quota: warn
  namespaces:
    - pattern: "sandbox-*"
      mode: audit
      mutate: false
quota:
  namespaces:
    team-a: {nvidia.com/gpu: 1}
    sandbox-1: {nvidia.com/gpu: 1}
)";

json Pod(const std::string& name, const std::string& ns, const std::string& gpus, bool privileged) {
  json pod = GpuPod(name, json::array({{{"nvidia.com/gpu", gpus}}}));
  pod["metadata"]["namespace"] = ns;
  pod["metadata"]["uid"] = "uid-" + name;
  if (privileged) pod["spec"]["containers"][0]["securityContext"] = {{"privileged", true}};
  return pod;
}

class ModesLocal : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_.Write("gpugate.yaml", kConfig);
    server_ = std::make_unique<GpugateServer>(
        std::vector<std::string>{"--config", dir_.File("gpugate.yaml")});
  }

  // The `response` of the review's answer on `route`.
  json Send(const std::string& route, const json& pod, const std::string& ns) {
    json review =
        MakeReview(pod, {.ns = ns, .uid = "req-" + pod["metadata"]["name"].get<std::string>()});
    auto res = server_->Client()->Post(route, review.dump(), "application/json");
    EXPECT_TRUE(res && res->status == 200) << (res ? res->body : "no answer");
    return res ? json::parse(res->body)["response"] : json();
  }

  std::string Metrics() {
    auto res = server_->Client()->Get("/metrics");
    return res ? res->body : "";
  }

  TempDir dir_;
  std::unique_ptr<GpugateServer> server_;
};

constexpr char kPrivileged[] =
    R"(spec.containers[0] "c0": privileged container in a pod that requests GPUs sees every GPU on the node)";
// GpuPod sets the request beside the limit: two messages.
const std::string kFractional =
    R"(spec.containers[0] "c0": nvidia.com/gpu limit "0.5" must be a whole number of GPUs; )"
    R"(spec.containers[0] "c0": nvidia.com/gpu request "0.5" must be a whole number of GPUs)";

TEST_F(ModesLocal, WarnModeAdmitsWithWarningsAndDenyModeStillRefuses) {
  json warned = Send("/validate", Pod("priv", "team-a", "1", true), "team-a");
  EXPECT_EQ(warned["allowed"], true);
  EXPECT_EQ(warned["warnings"], json::array({kPrivileged}));
  EXPECT_FALSE(warned.contains("auditAnnotations"));

  // Both: the deny-mode finding refuses, the warn-mode one comes with it.
  json denied = Send("/validate", Pod("both", "team-a", "0.5", true), "team-a");
  EXPECT_EQ(denied["allowed"], false);
  EXPECT_EQ(denied["status"]["message"], kFractional);
  EXPECT_EQ(denied["warnings"], json::array({kPrivileged}));
  // /mutate refuses the same, and patches the warned pod.
  EXPECT_EQ(Send("/mutate", Pod("both", "team-a", "0.5", true), "team-a")["status"]["message"],
            kFractional);
  EXPECT_TRUE(Send("/mutate", Pod("priv", "team-a", "1", true), "team-a").contains("patch"));
}

TEST_F(ModesLocal, QuotaInWarnModeAdmitsAndChargesPastTheLimit) {
  ASSERT_FALSE(Send("/validate", Pod("one", "team-a", "1", false), "team-a").contains("warnings"));
  json over = Send("/validate", Pod("two", "team-a", "1", false), "team-a");
  EXPECT_EQ(over["allowed"], true);
  EXPECT_EQ(over["warnings"],
            json::array({"exceeded quota: team-a, requested: nvidia.com/gpu=1, used: "
                         "nvidia.com/gpu=1, limited: nvidia.com/gpu=1"}));
  auto quota = server_->Client()->Get("/quota?namespace=team-a");
  ASSERT_TRUE(quota && quota->status == 200);
  json gpu = json::parse(quota->body)["namespaces"][0]["resources"]["nvidia.com/gpu"];
  EXPECT_EQ(gpu["used"], 2);
  EXPECT_EQ(gpu["hard"], 1);
}

TEST_F(ModesLocal, AuditModeNamespacesGetAnnotationsAndNoPatch) {
  json audited = Send("/validate", Pod("frac", "sandbox-1", "0.5", true), "sandbox-1");
  EXPECT_EQ(audited["allowed"], true);
  EXPECT_FALSE(audited.contains("warnings"));
  EXPECT_EQ(audited["auditAnnotations"],
            json({{"privileged-gpu", kPrivileged}, {"whole-units", kFractional}}));
  json second = Send("/validate", Pod("b", "sandbox-1", "1", false), "sandbox-1");
  json third = Send("/validate", Pod("c", "sandbox-1", "1", false), "sandbox-1");
  EXPECT_FALSE(second.contains("auditAnnotations"));
  EXPECT_EQ(third["auditAnnotations"],
            json({{"quota",
                   "exceeded quota: sandbox-1, requested: nvidia.com/gpu=1, used: "
                   "nvidia.com/gpu=1, limited: nvidia.com/gpu=1"}}));
  json mutated = Send("/mutate", Pod("c", "sandbox-1", "1", false), "sandbox-1");
  EXPECT_EQ(mutated["allowed"], true);
  EXPECT_FALSE(mutated.contains("patch")) << "mutate: false for sandbox-*";
  EXPECT_TRUE(Send("/mutate", Pod("c", "team-a", "1", false), "team-a").contains("patch"));
}

TEST_F(ModesLocal, MetricsCountEveryFindingByRuleAndModeAndTheLogShowsThem) {
  Send("/validate", Pod("priv", "team-a", "1", true), "team-a");    // warn; charged: team-a is full
  Send("/validate", Pod("both", "team-a", "0.5", true), "team-a");  // deny + warn
  Send("/mutate", Pod("both", "team-a", "0.5", true), "team-a");    // deny + warn
  Send("/validate", Pod("frac", "sandbox-1", "0.5", false), "sandbox-1");  // audit
  Send("/validate", Pod("q1", "team-a", "1", false), "team-a");            // quota warn
  Send("/validate", Pod("q2", "team-a", "1", false), "team-a");            // quota warn
  const std::string metrics = Metrics();
  for (const char* sample : {
           R"(gpugate_policy_violations_total{rule="privileged-gpu",mode="warn"} 3)",
           R"(gpugate_policy_violations_total{rule="whole-units",mode="deny"} 2)",
           R"(gpugate_policy_violations_total{rule="whole-units",mode="audit"} 1)",
           R"(gpugate_policy_violations_total{rule="quota",mode="warn"} 2)",
       }) {
    EXPECT_NE(metrics.find(std::string(sample) + "\n"), std::string::npos) << sample << " not in\n"
                                                                           << metrics;
  }
  EXPECT_TRUE(server_->WaitForLog(R"("violated":"privileged-gpu=warn")", std::chrono::seconds(5)))
      << server_->Logs();
}

// A finding too long for a warning (NVIDIA_VISIBLE_DEVICES naming four GPU UUIDs, 291
// characters) in warn mode, before a short one: the user sees both, the long one in its short
// form; its whole text is in the audit annotation and the log line.
TEST_F(ModesLocal, ALongFindingIsSentShortAndHidesNothingWhileTheLogKeepsItWhole) {
  json pod = Pod("uuids", "team-b", "1", true);
  std::string uuids;
  for (int i = 0; i < 4; ++i) {
    uuids +=
        (i ? "," : "") + std::string("GPU-8f2c1d3e-5a6b-4c7d-9e0f-1a2b3c4d5e6") + std::to_string(i);
  }
  pod["spec"]["containers"][0]["env"] = {{{"name", "NVIDIA_VISIBLE_DEVICES"}, {"value", uuids}}};
  const std::string whole = R"(spec.containers[0] "c0": env NVIDIA_VISIBLE_DEVICES ")" + uuids +
                            R"(" bypasses the GPU device plugin; request a managed GPU resource )"
                            "instead";
  ASSERT_GT(whole.size(), 256u);
  dir_.Write("warn.yaml", "modes: {default: warn}\n");
  server_ =
      std::make_unique<GpugateServer>(std::vector<std::string>{"--config", dir_.File("warn.yaml")});
  json warned = Send("/validate", pod, "team-b");
  EXPECT_EQ(warned["allowed"], true);
  EXPECT_EQ(warned["warnings"],
            json::array({R"(spec.containers[0] "c0": env NVIDIA_VISIBLE_DEVICES: remove it and )"
                         "request a managed GPU resource (gpugate rule visible-devices-env; "
                         "whole text in gpugate's log and audit annotations)",
                         kPrivileged}));
  EXPECT_EQ(warned["auditAnnotations"], json({{"warnings", whole}}));
  const std::string logged =
      "\"findings\":" +
      json("warn visible-devices-env: " + whole + " | warn privileged-gpu: " + kPrivileged).dump();
  EXPECT_TRUE(server_->WaitForLog(logged, std::chrono::seconds(5))) << server_->Logs();
}

// Over the wire, what the controllers send once a namespace moves to deny: a pod that predates
// the rule is labelled, and kept (the update changes no pod spec); its spec changed is refused.
TEST_F(ModesLocal, AnUpdateThatChangesNoPodSpecIsAdmittedInDenyMode) {
  const json legacy = Pod("legacy", "team-a", "0.5", false);
  json labelled = legacy;
  labelled["metadata"]["labels"] = {{"owner", "alice"}};
  json review = MakeReview(labelled, {.operation = "UPDATE", .ns = "team-a", .uid = "req-up"});
  review["request"]["oldObject"] = legacy;
  auto res = server_->Client()->Post("/validate", review.dump(), "application/json");
  ASSERT_TRUE(res && res->status == 200) << (res ? res->body : "no answer");
  json answer = json::parse(res->body)["response"];
  EXPECT_EQ(answer["allowed"], true);
  EXPECT_EQ(answer["auditAnnotations"], json({{"whole-units", kFractional}}));

  json respecced = legacy;
  respecced["spec"]["containers"][0]["image"] = "cuda:13";
  review["request"]["object"] = respecced;
  res = server_->Client()->Post("/validate", review.dump(), "application/json");
  ASSERT_TRUE(res && res->status == 200);
  answer = json::parse(res->body)["response"];
  EXPECT_EQ(answer["allowed"], false);
  EXPECT_EQ(answer["status"]["message"], kFractional);
}

}  // namespace
}  // namespace gpugate::testing
