// AdmissionRequest::samePodSpecs, as DecodeReview finds it for an UPDATE (review/same_value.h):
// a table of old and new objects, the new one changed as each row says, and whether their pod
// specs are the same by value.
#include <gtest/gtest.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>

#include "review/admission_review.h"

namespace gpugate::review {
namespace {

using nlohmann::json;

json TrainingPod() {
  return json::parse(R"({
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "trainer", "namespace": "team-a", "labels": {"app": "train"}},
    "spec": {
      "containers": [{
        "name": "main", "image": "cuda:12",
        "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}],
        "ports": [{"containerPort": 29500}],
        "resources": {"limits": {"nvidia.com/gpu": "1", "cpu": "500m"},
                      "requests": {"nvidia.com/gpu": "1", "cpu": "0.5"}}
      }],
      "overhead": {"memory": "64Mi"},
      "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists"}]
    }
  })");
}

// The UPDATE of `before` to `after`, as the API server sends it.
std::string UpdateReview(const json& before, const json& after, const std::string& resource) {
  return json{{"apiVersion", "admission.k8s.io/v1"},
              {"kind", "AdmissionReview"},
              {"request",
               {{"uid", "u-1"},
                {"kind",
                 {{"group", after.value("apiVersion", "") == "v1" ? "" : "apps"},
                  {"version", "v1"},
                  {"kind", after["kind"]}}},
                {"resource", {{"group", ""}, {"version", "v1"}, {"resource", resource}}},
                {"namespace", "team-a"},
                {"operation", "UPDATE"},
                {"object", after},
                {"oldObject", before}}}}
      .dump();
}

json& Container(json& pod) { return pod["spec"]["containers"][0]; }

// Both decoders: simdjson's, and nlohmann's (for bodies with integers beyond 64 bits).
using Decoder = Result<AdmissionRequest> (*)(std::string_view);
constexpr std::pair<const char*, Decoder> kDecoders[] = {{"simdjson", DecodeReview},
                                                         {"nlohmann", DecodeReviewWithNlohmann}};

struct Row {
  const char* name;
  std::function<void(json&)> change;  // applied to the new object
  bool same;
};

TEST(SamePodSpecs, ComparesTheSpecsByValue) {
  const Row rows[] = {
      {"nothing changed", [](json&) {}, true},
      {"a label changed (outside the spec)",
       [](json& p) { p["metadata"]["labels"]["stage"] = "evaluated"; }, true},
      {"the image changed", [](json& p) { Container(p)["image"] = "cuda:13"; }, false},
      {"a GPU limit 1 -> 2",
       [](json& p) { Container(p)["resources"]["limits"]["nvidia.com/gpu"] = "2"; }, false},
      {"a GPU request 1 -> 2",
       [](json& p) { Container(p)["resources"]["requests"]["nvidia.com/gpu"] = "2"; }, false},
      {"a limit removed", [](json& p) { Container(p)["resources"]["limits"].erase("cpu"); }, false},
      {"the overhead changed", [](json& p) { p["spec"]["overhead"]["memory"] = "128Mi"; }, false},
      {"a GPU limit written 1000m",
       [](json& p) { Container(p)["resources"]["limits"]["nvidia.com/gpu"] = "1000m"; }, true},
      {"a cpu request written 500m",
       [](json& p) { Container(p)["resources"]["requests"]["cpu"] = "500m"; }, true},
      {"a GPU limit written as the number 1",
       [](json& p) { Container(p)["resources"]["limits"]["nvidia.com/gpu"] = 1; }, true},
      {"a port number changed", [](json& p) { Container(p)["ports"][0]["containerPort"] = 29501; },
       false},
      {"env reordered (lists compare by position)",
       [](json& p) { std::swap(Container(p)["env"][0], Container(p)["env"][1]); }, false},
      {"an env value changed deep inside", [](json& p) { Container(p)["env"][1]["value"] = "3"; },
       false},
      {"a toleration added",
       [](json& p) {
         p["spec"]["tolerations"].push_back({{"key", "spot"}, {"operator", "Exists"}});
       },
       false},
  };
  for (const auto& [decoder, decode] : kDecoders) {
    for (const Row& row : rows) {
      const json before = TrainingPod();
      json after = before;
      row.change(after);
      auto request = decode(UpdateReview(before, after, "pods"));
      ASSERT_TRUE(request.has_value()) << decoder << ": " << row.name;
      EXPECT_EQ(request->samePodSpecs, row.same) << decoder << ": " << row.name;
    }
  }
}

// Members written in another order are the same object; a repeated key counts by its last
// value, as every view of the document reads it. Text-level: nlohmann keeps neither.
TEST(SamePodSpecs, MemberOrderAsideAndTheLastOfARepeatedKey) {
  const json pod = TrainingPod();
  const std::string text = UpdateReview(pod, pod, "pods");
  // nlohmann writes keys in order, and "object" before "oldObject": the first occurrence of a
  // member is the new object's.
  const std::string image = R"("image":"cuda:12")", name = R"("name":"main")";
  auto edit = [&](const std::string& replacement, const std::string& what) {
    std::string out = text;
    out.replace(out.find(what), what.size(), replacement);
    return out;
  };
  struct TextRow {
    const char* name;
    std::string body;
    bool same;
  } rows[] = {
      {"name moved before image", edit(name + "," + image, image + "," + name), true},
      {"the image repeated, the last the same",
       edit(R"("image":"cuda:13","image":"cuda:12")", image), true},
      {"the image repeated, the last changed",
       edit(R"("image":"cuda:12","image":"cuda:13")", image), false},
  };
  for (const auto& [decoder, decode] : kDecoders) {
    for (const TextRow& row : rows) {
      auto request = decode(row.body);
      ASSERT_TRUE(request.has_value()) << decoder << ": " << row.name;
      EXPECT_EQ(request->samePodSpecs, row.same) << decoder << ": " << row.name;
    }
  }
}

TEST(SamePodSpecs, AWorkloadsTemplateToo) {
  json before = {{"apiVersion", "apps/v1"},
                 {"kind", "Deployment"},
                 {"metadata", {{"name", "train"}, {"namespace", "team-a"}}},
                 {"spec", {{"template", {{"spec", TrainingPod()["spec"]}}}}}};
  json relabelled = before, raised = before;
  relabelled["metadata"]["labels"] = {{"stage", "evaluated"}};
  Container(raised["spec"]["template"])["resources"]["limits"]["nvidia.com/gpu"] = "4";
  for (const auto& [decoder, decode] : kDecoders) {
    auto same = decode(UpdateReview(before, relabelled, "deployments"));
    auto changed = decode(UpdateReview(before, raised, "deployments"));
    ASSERT_TRUE(same.has_value() && changed.has_value()) << decoder;
    EXPECT_TRUE(same->samePodSpecs) << decoder;
    EXPECT_FALSE(changed->samePodSpecs) << decoder;
  }
}

}  // namespace
}  // namespace gpugate::review
