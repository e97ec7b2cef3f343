#include "policy/rule_inputs.h"

#include <gtest/gtest.h>

#include <functional>

#include "policy/testing.h"

namespace gpugate::policy {
namespace {

using testing::PodBuilder;

// A legacy GPU pod: a fractional GPU, a core-limit annotation, an unrelated annotation.
PodBuilder Legacy() {
  PodBuilder b;
  b.Annotation("tencent.com/vcuda-core-limit", "50")
      .Annotation("team", "vision")
      .Container("trainer")
      .Gpu("nvidia.com/gpu", "0.5")
      .Env("MODE", "train");
  return b;
}

ObjectView One(const PodBuilder& b) { return {.podSpecs = {b.Build()}, .shapeErrors = {}}; }

TEST(SameRuleInputs, WhatTheRulesReadDecides) {
  const struct {
    const char* name;
    std::function<void(PodBuilder&)> change;  // applied to Legacy() for the "after" object
    bool same;
  } kCases[] = {
      {"nothing", [](PodBuilder&) {}, true},
      {"an annotation no rule reads",
       [](PodBuilder& b) { b.Annotation("kubectl.kubernetes.io/restartedAt", "now"); }, true},
      {"the GPU limit", [](PodBuilder& b) { b.Limit("nvidia.com/gpu", "1"); }, false},
      {"an env var", [](PodBuilder& b) { b.Env("NVIDIA_VISIBLE_DEVICES", "all"); }, false},
      {"privileged", [](PodBuilder& b) { b.Privileged(); }, false},
      {"another container", [](PodBuilder& b) { b.Container("sidecar"); }, false},
      {"the scheduler", [](PodBuilder& b) { b.SchedulerName("volcano"); }, false},
      {"the node name", [](PodBuilder& b) { b.NodeName("node-1"); }, false},
      {"the node selector", [](PodBuilder& b) { b.NodeSelector("nvidia.com/gpu.product", "A100"); },
       false},
      {"a required node term",
       [](PodBuilder& b) {
         b.NodeTerm({{"nvidia.com/gpu.product", "In", "T4"}});
       },
       false},
  };
  for (const auto& c : kCases) {
    PodBuilder after = Legacy();
    c.change(after);
    EXPECT_EQ(SameRuleInputs(One(Legacy()), One(after)), c.same) << c.name;
  }
}

TEST(SameRuleInputs, EveryAnnotationARuleReadsCounts) {
  for (std::string_view key : kRuleAnnotations) {
    PodBuilder before, after;
    before.Container("c").Gpu("nvidia.com/gpu", "1");
    after.Annotation(std::string(key), "a100").Container("c").Gpu("nvidia.com/gpu", "1");
    EXPECT_FALSE(SameRuleInputs(One(before), One(after))) << key;
  }
}

TEST(SameRuleInputs, RespelledQuantitiesAreTheSame) {
  const struct {
    const char* before;
    const char* after;
    bool same;
  } kCases[] = {
      {"0.5", "500m", true}, {"1", "1000m", true}, {"1", " 1 ", true}, {"1", "2", false},
      {"0.5", "0.50", true}, {"x", "x", true},     {"x", "y", false},  {"1", "x", false},
  };
  for (const auto& c : kCases) {
    PodBuilder before, after;
    before.Container("c").Limit("nvidia.com/gpu", c.before);
    after.Container("c").Limit("nvidia.com/gpu", c.after);
    EXPECT_EQ(SameRuleInputs(One(before), One(after)), c.same) << c.before << " -> " << c.after;
  }
}

TEST(SameRuleInputs, PodSpecsAndShapeErrorsMustMatchInNumberAndPlace) {
  const ObjectView one = One(Legacy());
  ObjectView two = one;
  two.podSpecs.push_back(PodBuilder("spec.tasks[1].template.spec").Container("c").Build());
  EXPECT_FALSE(SameRuleInputs(one, two));
  EXPECT_FALSE(SameRuleInputs(two, one));
  ObjectView moved = One(Legacy());
  moved.podSpecs[0].path = "spec.template.spec";
  EXPECT_FALSE(SameRuleInputs(one, moved));
  ObjectView broken = one;
  broken.shapeErrors.push_back({"spec.containers[0].resources", "must be an object, got array"});
  EXPECT_FALSE(SameRuleInputs(one, broken));
  EXPECT_TRUE(SameRuleInputs(broken, broken));
}

}  // namespace
}  // namespace gpugate::policy
