#include <gtest/gtest.h>

#include "policy/checks.h"
#include "policy/rule.h"
#include "policy/testing.h"

namespace gpugate::policy {
namespace {

using testing::PodBuilder;

TEST(Rules, TableOrderIsTheReportingOrder) {
  std::vector<std::string_view> names;
  for (const Rule& r : Rules()) names.push_back(r.name);
  EXPECT_EQ(names,
            (std::vector<std::string_view>{
                "whole-units", "requests-equal-limits", "max-per-container", "vcuda-core-shares",
                "core-limit-annotation", "visible-devices-env", "privileged-gpu", "scheduler"}));
}

// "rule: message" per violation, so one comparison shows both.
std::vector<std::string> Render(const std::vector<Violation>& violations) {
  std::vector<std::string> out;
  for (const Violation& v : violations) out.push_back(std::string(v.rule) + ": " + v.message);
  return out;
}

TEST(Validate, CleanObjectIsAllowed) {
  ObjectView object;
  object.podSpecs.push_back(PodBuilder().Container("a").Gpu("nvidia.com/gpu", "1").Build());
  EXPECT_EQ(Render(Validate(object, Settings{})), std::vector<std::string>{});
  EXPECT_EQ(Render(Validate(ObjectView{}, Settings{})), std::vector<std::string>{});
}

TEST(Validate, ShapeErrorsThenEachPodSpecInTableOrder) {
  ObjectView object;
  object.shapeErrors = {{"spec.containers[0].resources.limits", "must be an object, got array"},
                        {"spec.nodeName", "must be a string, got number"}};
  object.podSpecs.push_back(PodBuilder()
                                .Container("a")
                                .Privileged()
                                .Env("NVIDIA_VISIBLE_DEVICES", "all")
                                .Limit("nvidia.com/gpu", "0.5")
                                .Request("tencent.com/vcuda-core", "150")
                                .Annotation("tencent.com/vcuda-core-limit", "0")
                                .Build());
  object.podSpecs.push_back(
      PodBuilder("spec.jobTemplate.spec.template.spec", "spec.jobTemplate.spec.template.metadata")
          .Container("b")
          .Gpu("volcano.sh/gpu-memory", "1024")
          .NodeName("node-1")
          .Build());
  EXPECT_EQ(
      Render(Validate(object, Settings{})),
      (std::vector<std::string>{
          "object-shape: spec.containers[0].resources.limits: must be an object, got array",
          "object-shape: spec.nodeName: must be a string, got number",
          R"(whole-units: spec.containers[0] "a": nvidia.com/gpu limit "0.5" must be a whole number of GPUs)",
          R"(requests-equal-limits: spec.containers[0] "a": tencent.com/vcuda-core request "150" has no limit; set the limit to the same value)",
          R"(vcuda-core-shares: spec.containers[0] "a": tencent.com/vcuda-core request "150" must be below 100 (a share of one card) or a multiple of 100 (whole cards))",
          R"(core-limit-annotation: metadata.annotations[tencent.com/vcuda-core-limit] "0" must be an integer from 1 to 100)",
          R"(visible-devices-env: spec.containers[0] "a": env NVIDIA_VISIBLE_DEVICES "all" bypasses the GPU device plugin; request a managed GPU resource instead)",
          R"(privileged-gpu: spec.containers[0] "a": privileged container in a pod that requests GPUs sees every GPU on the node)",
          R"(scheduler: spec.jobTemplate.spec.template.spec.nodeName "node-1" bypasses the volcano scheduler that volcano.sh/gpu-memory requires; remove nodeName)",
      }));
}

}  // namespace
}  // namespace gpugate::policy
