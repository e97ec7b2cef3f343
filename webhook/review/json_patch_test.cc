#include "review/json_patch.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "review/pod_spec_finder.h"

namespace gpugate::review {
namespace {

using nlohmann::json;
using policy::MutationPlan;
using policy::TolerationView;

const TolerationView kGpuToleration = {
    .key = "nvidia.com/gpu", .op = "Exists", .effect = "NoSchedule"};
const TolerationView kDedicated = {
    .key = "dedicated", .op = "Equal", .value = "gpu", .effect = "NoSchedule"};

// Each case patches the pod spec the finder reports for `object` (the first one), so the view and
// the object always match, then applies the patch as the apiserver would.
struct Case {
  std::string name;
  std::string object;  // JSON text of the object under review
  MutationPlan plan;
  std::string patch;    // the patch document, exactly
  std::string patched;  // JSON text of the object after the patch
};

void PatchAndApply(const Case& c) {
  SCOPED_TRACE(c.name);
  json object = json::parse(c.object);
  policy::ObjectView view = FindPodSpecs(object);
  ASSERT_EQ(view.shapeErrors.size(), 0u);
  ASSERT_FALSE(view.podSpecs.empty());
  std::string patch = BuildPatch(view.podSpecs[0], c.plan);
  EXPECT_EQ(patch, c.patch);
  if (patch.empty()) return;
  json ops = json::parse(patch, nullptr, /*allow_exceptions=*/false);
  ASSERT_TRUE(ops.is_array()) << patch;
  json result;
  try {
    result = object.patch(ops);
  } catch (const json::exception& e) {
    FAIL() << "the apiserver would reject this patch: " << e.what();
  }
  EXPECT_EQ(result, json::parse(c.patched)) << result.dump();
}

TEST(BuildPatch, Tolerations) {
  const Case cases[] = {
      {"no tolerations list: the list is added whole",
       R"({"metadata":{},"spec":{"containers":[{"name":"a"}]}})",
       {.addTolerations = {kGpuToleration, kDedicated}},
       R"([{"op":"add","path":"/spec/tolerations","value":[{"key":"nvidia.com/gpu","operator":"Exists","effect":"NoSchedule"},{"key":"dedicated","operator":"Equal","value":"gpu","effect":"NoSchedule"}]}])",
       R"({"metadata":{},"spec":{"containers":[{"name":"a"}],"tolerations":[
           {"key":"nvidia.com/gpu","operator":"Exists","effect":"NoSchedule"},
           {"key":"dedicated","operator":"Equal","value":"gpu","effect":"NoSchedule"}]}})"},
      {"an existing list is appended to, keeping what the user wrote",
       R"({"metadata":{},"spec":{"containers":[{"name":"a"}],"tolerations":[
           {"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}]}})",
       {.addTolerations = {kGpuToleration, kDedicated}},
       R"([{"op":"add","path":"/spec/tolerations/-","value":{"key":"nvidia.com/gpu","operator":"Exists","effect":"NoSchedule"}},{"op":"add","path":"/spec/tolerations/-","value":{"key":"dedicated","operator":"Equal","value":"gpu","effect":"NoSchedule"}}])",
       R"({"metadata":{},"spec":{"containers":[{"name":"a"}],"tolerations":[
           {"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300},
           {"key":"nvidia.com/gpu","operator":"Exists","effect":"NoSchedule"},
           {"key":"dedicated","operator":"Equal","value":"gpu","effect":"NoSchedule"}]}})"},
      {"an empty list is appended to",
       R"({"spec":{"containers":[{"name":"a"}],"tolerations":[]}})",
       {.addTolerations = {kGpuToleration}},
       R"([{"op":"add","path":"/spec/tolerations/-","value":{"key":"nvidia.com/gpu","operator":"Exists","effect":"NoSchedule"}}])",
       R"({"spec":{"containers":[{"name":"a"}],"tolerations":[
           {"key":"nvidia.com/gpu","operator":"Exists","effect":"NoSchedule"}]}})"},
      {"a null list is replaced whole",
       R"({"spec":{"containers":[{"name":"a"}],"tolerations":null}})",
       {.addTolerations = {kGpuToleration}},
       R"([{"op":"add","path":"/spec/tolerations","value":[{"key":"nvidia.com/gpu","operator":"Exists","effect":"NoSchedule"}]}])",
       R"({"spec":{"containers":[{"name":"a"}],"tolerations":[
           {"key":"nvidia.com/gpu","operator":"Exists","effect":"NoSchedule"}]}})"},
      {"empty fields are left out (an empty-key Exists toleration)",
       R"({"spec":{"containers":[{"name":"a"}]}})",
       {.addTolerations = {{.op = "Exists"}}},
       R"([{"op":"add","path":"/spec/tolerations","value":[{"operator":"Exists"}]}])",
       R"({"spec":{"containers":[{"name":"a"}],"tolerations":[{"operator":"Exists"}]}})"},
  };
  for (const auto& c : cases) PatchAndApply(c);
}

TEST(BuildPatch, SchedulerName) {
  const Case cases[] = {
      {"absent: added",
       R"({"spec":{"containers":[{"name":"a"}]}})",
       {.schedulerName = "volcano"},
       R"([{"op":"add","path":"/spec/schedulerName","value":"volcano"}])",
       R"({"spec":{"containers":[{"name":"a"}],"schedulerName":"volcano"}})"},
      {"the default scheduler: replaced",
       R"({"spec":{"containers":[{"name":"a"}],"schedulerName":"default-scheduler"}})",
       {.schedulerName = "volcano"},
       R"([{"op":"replace","path":"/spec/schedulerName","value":"volcano"}])",
       R"({"spec":{"containers":[{"name":"a"}],"schedulerName":"volcano"}})"},
      {"empty: replaced",
       R"({"spec":{"containers":[{"name":"a"}],"schedulerName":""}})",
       {.schedulerName = "volcano"},
       R"([{"op":"replace","path":"/spec/schedulerName","value":"volcano"}])",
       R"({"spec":{"containers":[{"name":"a"}],"schedulerName":"volcano"}})"},
      {"null: added over the null",
       R"({"spec":{"containers":[{"name":"a"}],"schedulerName":null}})",
       {.schedulerName = "hami-scheduler"},
       R"([{"op":"add","path":"/spec/schedulerName","value":"hami-scheduler"}])",
       R"({"spec":{"containers":[{"name":"a"}],"schedulerName":"hami-scheduler"}})"},
  };
  for (const auto& c : cases) PatchAndApply(c);
}

TEST(BuildPatch, CoreLimitAnnotation) {
  const Case cases[] = {
      {"no annotations map: the map is added whole",
       R"({"metadata":{"name":"p"},"spec":{"containers":[{"name":"a"}]}})",
       {.coreLimit = "50"},
       R"([{"op":"add","path":"/metadata/annotations","value":{"tencent.com/vcuda-core-limit":"50"}}])",
       R"({"metadata":{"name":"p","annotations":{"tencent.com/vcuda-core-limit":"50"}},
           "spec":{"containers":[{"name":"a"}]}})"},
      {"an existing map gets the key, escaped in the pointer",
       R"({"metadata":{"annotations":{"team":"ml"}},"spec":{"containers":[{"name":"a"}]}})",
       {.coreLimit = "25"},
       R"([{"op":"add","path":"/metadata/annotations/tencent.com~1vcuda-core-limit","value":"25"}])",
       R"({"metadata":{"annotations":{"team":"ml","tencent.com/vcuda-core-limit":"25"}},
           "spec":{"containers":[{"name":"a"}]}})"},
      {"a null map is replaced whole",
       R"({"metadata":{"annotations":null},"spec":{"containers":[{"name":"a"}]}})",
       {.coreLimit = "10"},
       R"([{"op":"add","path":"/metadata/annotations","value":{"tencent.com/vcuda-core-limit":"10"}}])",
       R"({"metadata":{"annotations":{"tencent.com/vcuda-core-limit":"10"}},
           "spec":{"containers":[{"name":"a"}]}})"},
      {"a pod spec without metadata beside it gets no annotation",
       R"({"spec":{"tasks":[{"template":{"spec":{"containers":[{"name":"a"}]}}}]}})",
       {.addTolerations = {kGpuToleration}, .coreLimit = "50"},
       R"([{"op":"add","path":"/spec/tasks/0/template/spec/tolerations","value":[{"key":"nvidia.com/gpu","operator":"Exists","effect":"NoSchedule"}]}])",
       R"({"spec":{"tasks":[{"template":{"spec":{"containers":[{"name":"a"}],"tolerations":[
           {"key":"nvidia.com/gpu","operator":"Exists","effect":"NoSchedule"}]}}}]}})"},
  };
  for (const auto& c : cases) PatchAndApply(c);
}

TEST(BuildPatch, WholePlansAndTemplates) {
  const Case cases[] = {
      {"an empty plan is no patch", R"({"spec":{"containers":[{"name":"a"}]}})", {}, "", ""},
      {"every part, in order: tolerations, scheduler, annotation",
       R"({"metadata":{"annotations":{}},"spec":{"containers":[{"name":"a"}],"tolerations":[]}})",
       {.addTolerations = {kGpuToleration}, .schedulerName = "volcano", .coreLimit = "30"},
       R"([{"op":"add","path":"/spec/tolerations/-","value":{"key":"nvidia.com/gpu","operator":"Exists","effect":"NoSchedule"}},{"op":"add","path":"/spec/schedulerName","value":"volcano"},{"op":"add","path":"/metadata/annotations/tencent.com~1vcuda-core-limit","value":"30"}])",
       R"({"metadata":{"annotations":{"tencent.com/vcuda-core-limit":"30"}},
           "spec":{"containers":[{"name":"a"}],"schedulerName":"volcano","tolerations":[
             {"key":"nvidia.com/gpu","operator":"Exists","effect":"NoSchedule"}]}})"},
      {"a Deployment's template: the pointers lead into spec.template",
       R"({"metadata":{"name":"d"},"spec":{"replicas":2,"template":{"metadata":{"labels":{"app":"x"}},
           "spec":{"containers":[{"name":"a"}]}}}})",
       {.addTolerations = {kGpuToleration}, .schedulerName = "volcano", .coreLimit = "50"},
       R"([{"op":"add","path":"/spec/template/spec/tolerations","value":[{"key":"nvidia.com/gpu","operator":"Exists","effect":"NoSchedule"}]},{"op":"add","path":"/spec/template/spec/schedulerName","value":"volcano"},{"op":"add","path":"/spec/template/metadata/annotations","value":{"tencent.com/vcuda-core-limit":"50"}}])",
       R"({"metadata":{"name":"d"},"spec":{"replicas":2,"template":{
           "metadata":{"labels":{"app":"x"},"annotations":{"tencent.com/vcuda-core-limit":"50"}},
           "spec":{"containers":[{"name":"a"}],"schedulerName":"volcano","tolerations":[
             {"key":"nvidia.com/gpu","operator":"Exists","effect":"NoSchedule"}]}}}})"},
      {"values with quotes are JSON-escaped",
       R"({"spec":{"containers":[{"name":"a"}]}})",
       {.addTolerations = {{.key = "k\"1", .op = "Equal", .value = "v\\2"}}},
       R"([{"op":"add","path":"/spec/tolerations","value":[{"key":"k\"1","operator":"Equal","value":"v\\2"}]}])",
       R"({"spec":{"containers":[{"name":"a"}],"tolerations":[{"key":"k\"1","operator":"Equal","value":"v\\2"}]}})"},
  };
  for (const auto& c : cases) PatchAndApply(c);
}

}  // namespace
}  // namespace gpugate::review
