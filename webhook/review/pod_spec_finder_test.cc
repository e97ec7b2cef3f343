#include "review/pod_spec_finder.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "review/admission_review.h"
#include "test_paths.h"

namespace gpugate::review {
namespace {

using nlohmann::json;

std::string ReadFixture(const std::string& name) {
  std::ifstream in(std::string(GPUGATE_FIXTURES_DIR) + "/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// One line per shape error: "path: problem".
std::vector<std::string> Errors(const policy::ObjectView& view) {
  std::vector<std::string> out;
  for (const auto& e : view.shapeErrors) out.push_back(e.path + ": " + e.problem);
  return out;
}

std::string Quantities(const std::vector<policy::ResourceEntry>& list) {
  std::string out;
  for (const auto& e : list) {
    if (!out.empty()) out += ",";
    (((out += e.name) += '=') += e.value.text) += e.value.wrongType ? "(wrong type)" : "";
  }
  return out;
}

// A container as a short line, so a test compares what the rules will read.
std::string Describe(const policy::PodSpecView& pod, const policy::ContainerView& c) {
  std::string out = pod.ContainerLabel(c);
  out += " limits{" + Quantities(c.limits) + "} requests{" + Quantities(c.requests) + "} env{";
  for (size_t i = 0; i < c.env.size(); ++i) {
    if (i) out += ",";
    (((out += c.env[i].name) += '=') += c.env[i].value) += c.env[i].fromSource ? "(valueFrom)" : "";
  }
  out += "}";
  if (c.privileged) out += " privileged";
  if (!c.restartPolicy.empty()) (out += " restartPolicy=") += c.restartPolicy;
  return out;
}

std::vector<std::string> Containers(const policy::PodSpecView& pod) {
  std::vector<std::string> out;
  for (const auto& c : pod.containers) out.push_back(Describe(pod, c));
  return out;
}

// Where a pod spec sits: "path pointer | metadataPath metadataPointer".
std::string Where(const policy::PodSpecView& pod) {
  return pod.path + " " + pod.pointer + " | " + pod.metadataPath + " " + pod.metadataPointer;
}

std::vector<std::string> Wheres(const policy::ObjectView& view) {
  std::vector<std::string> out;
  for (const auto& pod : view.podSpecs) out.push_back(Where(pod));
  return out;
}

// The walk has three front ends: nlohmann-json (the cluster layer's FindPodSpecs), and
// request.object of a review decoded by simdjson (DecodeReview) or by nlohmann
// (DecodeReviewWithNlohmann, its fallback). Every case runs through all three, which must agree.
struct FrontEndResult {
  std::string frontEnd;
  policy::ObjectView view;
};

std::vector<FrontEndResult> AllFrontEnds(const std::string& object) {
  std::vector<FrontEndResult> out;
  json doc = json::parse(object, nullptr, /*allow_exceptions=*/false);
  EXPECT_TRUE(doc.is_object()) << object;
  // The views outlive this function, so they take the document over.
  out.push_back({"FindPodSpecs(nlohmann::json)", FindPodSpecs(std::move(doc))});
  const std::string review =
      R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u",)"
      R"("object":)" +
      object + "}}";
  for (auto [name, decode] : {std::pair{"DecodeReview", &DecodeReview},
                              std::pair{"DecodeReviewWithNlohmann", &DecodeReviewWithNlohmann}}) {
    auto request = decode(review);
    EXPECT_TRUE(request.has_value()) << name << ": " << request.error().message;
    if (request) out.push_back({name, std::move(request->object)});
  }
  return out;
}

TEST(PodSpecFinder, KubernetesFixtures) {
  struct Case {
    std::string file;
    std::vector<std::string> where;  // one per pod spec found
  } cases[] = {
      {"core.v1.Pod.json", {"spec /spec | metadata /metadata"}},
      {"core.v1.PodTemplate.json",
       {"template.spec /template/spec | template.metadata /template/metadata"}},
      {"apps.v1.Deployment.json",
       {"spec.template.spec /spec/template/spec | spec.template.metadata /spec/template/metadata"}},
      {"apps.v1.StatefulSet.json",
       {"spec.template.spec /spec/template/spec | spec.template.metadata /spec/template/metadata"}},
      {"apps.v1.DaemonSet.json",
       {"spec.template.spec /spec/template/spec | spec.template.metadata /spec/template/metadata"}},
      {"batch.v1.Job.json",
       {"spec.template.spec /spec/template/spec | spec.template.metadata /spec/template/metadata"}},
      {"batch.v1.CronJob.json",
       {"spec.jobTemplate.spec.template.spec /spec/jobTemplate/spec/template/spec | "
        "spec.jobTemplate.spec.template.metadata /spec/jobTemplate/spec/template/metadata"}},
      {"core.v1.ResourceQuota.json", {}},
      {"admissionregistration.k8s.io.v1.MutatingWebhookConfiguration.json", {}},
      {"admissionregistration.k8s.io.v1.ValidatingWebhookConfiguration.json", {}},
      // The envelope's request.object is a placeholder custom type without containers.
      {"admission.k8s.io.v1.AdmissionReview.json", {}},
      {"admission.k8s.io.v1beta1.AdmissionReview.json", {}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.file);
    for (const auto& [frontEnd, view] : AllFrontEnds(ReadFixture(c.file))) {
      SCOPED_TRACE(frontEnd);
      EXPECT_EQ(Wheres(view), c.where);
      // Every field Kubernetes can send is present in these fixtures; none trips the decoder.
      EXPECT_EQ(Errors(view), std::vector<std::string>{});
      // The Pod's status lists containers as strings (nodeAllocatableResourceClaimStatuses);
      // only the spec counts.
    }
  }
}

// Every pod spec in the fixtures is the same generated PodSpec, so one expectation serves all.
TEST(PodSpecFinder, KubernetesFixturesReadEveryContainerKind) {
  for (const std::string file :
       {"core.v1.Pod.json", "core.v1.PodTemplate.json", "apps.v1.Deployment.json",
        "apps.v1.StatefulSet.json", "apps.v1.DaemonSet.json", "batch.v1.Job.json",
        "batch.v1.CronJob.json"}) {
    SCOPED_TRACE(file);
    for (const auto& [frontEnd, view] : AllFrontEnds(ReadFixture(file))) {
      SCOPED_TRACE(frontEnd);
      ASSERT_EQ(view.podSpecs.size(), 1u);
      const policy::PodSpecView& pod = view.podSpecs[0];
      const std::string rest =
          R"( "nameValue" limits{limitsKey=0} requests{requestsKey=0} env{nameValue=valueValue(valueFrom)})"
          " privileged restartPolicy=restartPolicyValue";
      EXPECT_EQ(Containers(pod), (std::vector<std::string>{
                                     pod.path + ".initContainers[0]" + rest,
                                     pod.path + ".containers[0]" + rest,
                                     pod.path + ".ephemeralContainers[0]" + rest,
                                 }));
      EXPECT_EQ(pod.schedulerName, "schedulerNameValue");
      EXPECT_TRUE(pod.hasSchedulerName);
      EXPECT_EQ(pod.nodeName, "nodeNameValue");
      EXPECT_TRUE(pod.hasTolerations);
      ASSERT_EQ(pod.tolerations.size(), 1u);
      EXPECT_EQ(pod.tolerations[0].key, "keyValue");
      EXPECT_EQ(pod.tolerations[0].op, "operatorValue");
      EXPECT_EQ(pod.tolerations[0].value, "valueValue");
      EXPECT_EQ(pod.tolerations[0].effect, "effectValue");
      EXPECT_TRUE(pod.hasAnnotations);
      EXPECT_EQ(pod.Annotation("annotationsKey"), "annotationsValue");
      EXPECT_TRUE(pod.hasNodeSelector);
      EXPECT_EQ(pod.nodeSelector, (std::vector<std::pair<std::string_view, std::string_view>>{
                                      {"nodeSelectorKey", "nodeSelectorValue"}}));
      EXPECT_TRUE(pod.hasRequiredNodeAffinity);
      ASSERT_EQ(pod.requiredNodeTerms.size(), 1u);
      EXPECT_TRUE(pod.requiredNodeTerms[0].onFields);
      ASSERT_EQ(pod.requiredNodeTerms[0].expressions.size(), 1u);
      const policy::NodeRequirementView& r = pod.requiredNodeTerms[0].expressions[0];
      EXPECT_EQ(r.key, "keyValue");
      EXPECT_EQ(r.op, "operatorValue");
      EXPECT_EQ(r.values, (std::vector<std::string_view>{"valuesValue"}));
    }
  }
}

struct FinderCase {
  std::string name;
  std::string object;                   // JSON text
  std::vector<std::string> where;       // Where() of each pod spec, in order
  std::vector<std::string> containers;  // Describe() of every container of every pod spec
  std::vector<std::string> errors;      // "path: problem"
};

void RunFinderCases(const std::vector<FinderCase>& cases) {
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    for (const auto& [frontEnd, view] : AllFrontEnds(c.object)) {
      SCOPED_TRACE(frontEnd);
      EXPECT_EQ(Wheres(view), c.where);
      std::vector<std::string> containers;
      for (const auto& pod : view.podSpecs) {
        for (auto& line : Containers(pod)) containers.push_back(std::move(line));
      }
      EXPECT_EQ(containers, c.containers);
      EXPECT_EQ(Errors(view), c.errors);
    }
  }
}

TEST(PodSpecFinder, CustomResources) {
  RunFinderCases({
      {"Volcano Job tasks list: one task with template metadata, one without",
       R"({"apiVersion":"batch.volcano.sh/v1alpha1","kind":"Job","metadata":{"name":"j"},
           "spec":{"schedulerName":"volcano","tasks":[
             {"name":"ps","replicas":1,"template":{"metadata":{"annotations":{"a":"b"}},
               "spec":{"containers":[{"name":"ps","resources":{"limits":{"volcano.sh/gpu-memory":"1024"}}}]}}},
             {"name":"worker","replicas":2,"template":{
               "spec":{"containers":[{"name":"w","resources":{"limits":{"nvidia.com/gpu":"1"}}}]}}}]}})",
       {"spec.tasks[0].template.spec /spec/tasks/0/template/spec | spec.tasks[0].template.metadata "
        "/spec/tasks/0/template/metadata",
        "spec.tasks[1].template.spec /spec/tasks/1/template/spec |  "},
       {R"(spec.tasks[0].template.spec.containers[0] "ps" limits{volcano.sh/gpu-memory=1024} requests{} env{})",
        R"(spec.tasks[1].template.spec.containers[0] "w" limits{nvidia.com/gpu=1} requests{} env{})"},
       {}},
      {"Kubeflow replica specs map, in key order",
       R"({"apiVersion":"kubeflow.org/v1","kind":"PyTorchJob","metadata":{"name":"p"},
           "spec":{"pytorchReplicaSpecs":{
             "Worker":{"replicas":3,"template":{"spec":{"containers":[{"name":"pytorch",
               "resources":{"limits":{"nvidia.com/gpu":"2"}}}]}}},
             "Master":{"replicas":1,"template":{"spec":{"containers":[{"name":"pytorch",
               "resources":{"limits":{"nvidia.com/gpu":"1"}}}]}}}}}})",
       {"spec.pytorchReplicaSpecs.Master.template.spec "
        "/spec/pytorchReplicaSpecs/Master/template/spec |  ",
        "spec.pytorchReplicaSpecs.Worker.template.spec "
        "/spec/pytorchReplicaSpecs/Worker/template/spec |  "},
       {R"(spec.pytorchReplicaSpecs.Master.template.spec.containers[0] "pytorch" limits{nvidia.com/gpu=1} requests{} env{})",
        R"(spec.pytorchReplicaSpecs.Worker.template.spec.containers[0] "pytorch" limits{nvidia.com/gpu=2} requests{} env{})"},
       {}},
      {"Ray head group and worker group specs",
       R"({"apiVersion":"ray.io/v1","kind":"RayCluster","metadata":{"name":"r"},
           "spec":{"headGroupSpec":{"template":{"metadata":{},"spec":{"containers":[{"name":"head"}]}}},
                   "workerGroupSpecs":[{"groupName":"gpu","template":{"spec":{"containers":[
                     {"name":"worker","resources":{"limits":{"nvidia.com/gpu":1}}}]}}}]}})",
       {"spec.headGroupSpec.template.spec /spec/headGroupSpec/template/spec | "
        "spec.headGroupSpec.template.metadata /spec/headGroupSpec/template/metadata",
        "spec.workerGroupSpecs[0].template.spec /spec/workerGroupSpecs/0/template/spec |  "},
       {R"(spec.headGroupSpec.template.spec.containers[0] "head" limits{} requests{} env{})",
        R"(spec.workerGroupSpecs[0].template.spec.containers[0] "worker" limits{nvidia.com/gpu=1} requests{} env{})"},
       {}},
      {"arrays of arrays",
       R"({"spec":{"groups":[[{"x":1},{"template":{"metadata":{},"spec":{"containers":[{"name":"a"}]}}}]]}})",
       {"spec.groups[0][1].template.spec /spec/groups/0/1/template/spec | "
        "spec.groups[0][1].template.metadata /spec/groups/0/1/template/metadata"},
       {R"(spec.groups[0][1].template.spec.containers[0] "a" limits{} requests{} env{})"},
       {}},
      {"member names are escaped in pointers, not in paths",
       R"({"spec":{"a/b~c":{"template":{"metadata":{},"spec":{"containers":[{"name":"x"}]}}}}})",
       {"spec.a/b~c.template.spec /spec/a~1b~0c/template/spec | spec.a/b~c.template.metadata "
        "/spec/a~1b~0c/template/metadata"},
       {R"(spec.a/b~c.template.spec.containers[0] "x" limits{} requests{} env{})"},
       {}},
  });
}

TEST(PodSpecFinder, WhatIsNotAPodSpec) {
  RunFinderCases({
      {"a containers list of strings", R"({"spec":{"containers":["a","b"]}})", {}, {}, {}},
      {"containers that is not a list", R"({"spec":{"containers":{"name":"a"}}})", {}, {}, {}},
      {"the root's status is written by controllers",
       R"({"spec":{},"status":{"containers":[{"name":"a"}]}})",
       {},
       {},
       {}},
      {"the root's metadata", R"({"metadata":{"containers":[{"name":"a"}]}})", {}, {}, {}},
      {"a nested status is searched (it is a custom resource's field)",
       R"({"spec":{"status":{"containers":[{"name":"a"}]}}})",
       {"spec.status /spec/status |  "},
       {R"(spec.status.containers[0] "a" limits{} requests{} env{})"},
       {}},
      {"a pod spec holds no further pod specs",
       R"({"spec":{"containers":[{"name":"a","x":{"containers":[{"name":"inner"}]}}]}})",
       {"spec /spec |  "},
       {R"(spec.containers[0] "a" limits{} requests{} env{})"},
       {}},
  });
}

TEST(PodSpecFinder, ShapeErrors) {
  RunFinderCases({
      {"limits as an array",
       R"({"metadata":{},"spec":{"containers":[{"name":"a","resources":{"limits":["1"],"requests":{"nvidia.com/gpu":"1"}}}]}})",
       {"spec /spec | metadata /metadata"},
       {R"(spec.containers[0] "a" limits{} requests{nvidia.com/gpu=1} env{})"},
       {"spec.containers[0].resources.limits: must be object, got array"}},
      {"an env entry as a string",
       R"({"spec":{"containers":[{"name":"a","env":["X=1",{"name":"Y","value":"2"}]}]}})",
       {"spec /spec |  "},
       {R"(spec.containers[0] "a" limits{} requests{} env{Y=2})"},
       {"spec.containers[0].env[0]: must be object, got string"}},
      {"a containers element as a number",
       R"({"spec":{"containers":[{"name":"a"},7]}})",
       {"spec /spec |  "},
       {R"(spec.containers[0] "a" limits{} requests{} env{})"},
       {"spec.containers[1]: must be object, got number"}},
      {"an annotation value as a number",
       R"({"metadata":{"annotations":{"a":1,"b":"ok"}},"spec":{"containers":[{"name":"a"}]}})",
       {"spec /spec | metadata /metadata"},
       {R"(spec.containers[0] "a" limits{} requests{} env{})"},
       {"metadata.annotations[a]: must be string, got number"}},
      {"tolerations not an array",
       R"({"spec":{"tolerations":{"key":"k"},"containers":[{"name":"a"}]}})",
       {"spec /spec |  "},
       {R"(spec.containers[0] "a" limits{} requests{} env{})"},
       {"spec.tolerations: must be array, got object"}},
      {"a toleration as a string",
       R"({"spec":{"tolerations":["k"],"containers":[{"name":"a"}]}})",
       {"spec /spec |  "},
       {R"(spec.containers[0] "a" limits{} requests{} env{})"},
       {"spec.tolerations[0]: must be object, got string"}},
      {"fields of the wrong type, in the order they are read",
       R"({"spec":{"schedulerName":5,"initContainers":{},"containers":[{"name":true,
           "resources":[],"env":{},"securityContext":{"privileged":"true"}}]}})",
       {"spec /spec |  "},
       {R"(spec.containers[0] "" limits{} requests{} env{})"},
       {"spec.initContainers: must be array, got object",
        "spec.containers[0].name: must be string, got boolean",
        "spec.containers[0].resources: must be object, got array",
        "spec.containers[0].env: must be array, got object",
        "spec.containers[0].securityContext.privileged: must be boolean, got string",
        "spec.schedulerName: must be string, got number"}},
      {"scheduling constraints of the wrong types",
       R"({"spec":{"nodeSelector":{"a":"1","b":2},"affinity":{"nodeAffinity":
           {"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[
           "t",{"matchExpressions":[{"key":"k","operator":"In","values":["v",3]}]}]}}},
           "containers":[{"name":"a"}]}})",
       {"spec /spec |  "},
       {R"(spec.containers[0] "a" limits{} requests{} env{})"},
       {"spec.nodeSelector.b: must be string, got number",
        "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
        "nodeSelectorTerms[0]: must be object, got string",
        "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
        "nodeSelectorTerms[1].matchExpressions[0].values[1]: must be string, got number"}},
      {"a quantity of the wrong JSON type is kept for the rules to name",
       R"({"spec":{"containers":[{"name":"a","resources":{"limits":{"nvidia.com/gpu":{"n":1},"x/y":true}}}]}})",
       {"spec /spec |  "},
       {R"(spec.containers[0] "a" limits{nvidia.com/gpu=object(wrong type),x/y=boolean(wrong type)} requests{} env{})"},
       {}},
  });
}

TEST(PodSpecFinder, NumbersAsQuantitiesKeepTheirText) {
  RunFinderCases({
      {"integers, decimals and a large integer",
       R"({"spec":{"containers":[{"name":"a","resources":{
           "limits":{"nvidia.com/gpu":1,"cpu":0.5,"memory":12345678901234567890},
           "requests":{"nvidia.com/gpu":-2,"cpu":100}}}]}})",
       {"spec /spec |  "},
       {R"(spec.containers[0] "a" limits{cpu=0.5,memory=12345678901234567890,nvidia.com/gpu=1} requests{cpu=100,nvidia.com/gpu=-2} env{})"},
       {}},
  });
}

// A container's resource lists come out sorted by name however they are written: the views
// iterate a map's members in key order (a small map sorted on the stack, a large one in a vector).
TEST(PodSpecFinder, ResourceListsComeOutSortedByName) {
  std::string many = R"({"spec":{"containers":[{"name":"a","resources":{"limits":{)";
  std::string sorted;
  for (char c = 'z'; c >= 'a'; --c) {  // 26 members, written in descending order
    many += std::string(c == 'z' ? "" : ",") + "\"r/" + c + "\":\"1\"";
  }
  for (char c = 'a'; c <= 'z'; ++c) sorted += std::string(c == 'a' ? "" : ",") + "r/" + c + "=1";
  many += "}}}]}}";
  RunFinderCases({
      {"three limits and two requests, out of order",
       R"({"spec":{"containers":[{"name":"a","resources":{
           "limits":{"nvidia.com/gpu":"1","cpu":"8","memory":"32Gi"},
           "requests":{"memory":"1Gi","cpu":"1"}}}]}})",
       {"spec /spec |  "},
       {R"(spec.containers[0] "a" limits{cpu=8,memory=32Gi,nvidia.com/gpu=1} requests{cpu=1,memory=1Gi} env{})"},
       {}},
      {"more limits than sort on the stack",
       many,
       {"spec /spec |  "},
       {R"(spec.containers[0] "a" limits{)" + sorted + "} requests{} env{}"},
       {}},
  });
}

// Each thread keeps the walk's working lists between walks: a walk finds the same whatever the
// thread walked before, a huge object (whose lists are then freed) included.
TEST(PodSpecFinder, WalksInTurnOnOneThreadFindTheSame) {
  const std::string workload =
      R"({"spec":{"template":{"metadata":{"annotations":{"b":"2","a":"1"}},"spec":{
          "containers":[{"name":"c","resources":{"limits":{"nvidia.com/gpu":"1"}}}]}},
          "other":[{"spec":{"containers":[{"name":"d"}]}}]}})";
  std::string huge = R"({"items":[)";
  for (int i = 0; i < 3000; ++i) {
    huge += std::string(i ? "," : "") + R"({"spec":{"containers":[{"name":"p)" + std::to_string(i) +
            R"("}]}})";
  }
  huge += "]}";
  const std::vector<std::string> where = {
      "spec.other[0].spec /spec/other/0/spec |  ",
      "spec.template.spec /spec/template/spec | spec.template.metadata /spec/template/metadata"};
  const std::vector<std::string> containers = {
      R"(spec.other[0].spec.containers[0] "d" limits{} requests{} env{})",
      R"(spec.template.spec.containers[0] "c" limits{nvidia.com/gpu=1} requests{} env{})"};
  for (const std::string& before : {std::string("{}"), huge, workload, huge}) {
    SCOPED_TRACE(before.substr(0, 40));
    for (const auto& [frontEnd, view] : AllFrontEnds(before)) {
      EXPECT_EQ(view.podSpecs.size(), before == huge ? 3000u : before == workload ? 2u : 0u);
    }
    for (const auto& [frontEnd, view] : AllFrontEnds(workload)) {
      SCOPED_TRACE(frontEnd);
      EXPECT_EQ(Wheres(view), where);
      std::vector<std::string> found;
      for (const auto& pod : view.podSpecs) {
        for (auto& line : Containers(pod)) found.push_back(std::move(line));
      }
      EXPECT_EQ(found, containers);
      ASSERT_EQ(view.podSpecs.size(), 2u);
      EXPECT_EQ(
          view.podSpecs[1].annotations,
          (std::vector<std::pair<std::string_view, std::string_view>>{{"a", "1"}, {"b", "2"}}));
    }
  }
}

// A number's text is gone once parsed, so the request path reads it back from the body for
// decimals; the cluster layer's nlohmann front end prints the double (the apiserver writes a Pod's
// quantities as strings, so watched pods never carry one).
TEST(PodSpecFinder, RequestPathKeepsTheLiteralTextOfDecimals) {
  struct Case {
    std::string name;
    std::string object;
    size_t container;     // which container of the one pod spec carries the numbers
    std::string request;  // its Describe(), as both decoders read it
    std::string watch;    // ... as FindPodSpecs(nlohmann::json) reads it
  } cases[] = {
      {"decimals, exponents, a minus zero, an escaped name and a repeated one",
       R"({"spec":{"template":{"spec":{"initContainers":[{"name":"i0"},{"name":"i1","resources":{
           "limits":{"a":1e3,"b":1.50,"c":1.0000000000000000001,"d":-0,"e/f~g":2.5E-3,
                     "h":1.5,"h":2.50}}}],"containers":[{"name":"c","env":[]}]}}}})",
       1,
       R"(spec.template.spec.initContainers[1] "i1" limits{a=1e3,b=1.50,c=1.0000000000000000001,d=0,e/f~g=2.5E-3,h=2.50} requests{} env{})",
       R"(spec.template.spec.initContainers[1] "i1" limits{a=1000.0,b=1.5,c=1.0,d=0,e/f~g=0.0025,h=2.5} requests{} env{})"},
      // simdjson stops at 64-bit integers; DecodeReview falls back to nlohmann for this body.
      {"an integer beyond 64 bits, and a decimal beside it",
       R"({"spec":{"containers":[{"name":"a","resources":{
           "requests":{"big":100000000000000000000,"small":0.50}}}]}})",
       0, R"(spec.containers[0] "a" limits{} requests{big=100000000000000000000,small=0.50} env{})",
       R"(spec.containers[0] "a" limits{} requests{big=1e+20,small=0.5} env{})"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    for (const auto& [frontEnd, view] : AllFrontEnds(c.object)) {
      SCOPED_TRACE(frontEnd);
      ASSERT_EQ(view.podSpecs.size(), 1u);
      const policy::PodSpecView& pod = view.podSpecs[0];
      ASSERT_GT(pod.containers.size(), c.container);
      const bool watch = frontEnd == "FindPodSpecs(nlohmann::json)";
      EXPECT_EQ(Describe(pod, pod.containers[c.container]), watch ? c.watch : c.request);
    }
  }
}

// spec.overhead (what a RuntimeClass adds, copied in by the API server's admission) is read into
// the pod spec's view like a container's resource list: sorted, numbers with their literal text
// on the request path, a wrong type a shape error.
TEST(PodSpecFinder, OverheadIsReadBesideTheContainers) {
  struct Case {
    std::string name;
    std::string object;
    std::string request;  // the overhead as both decoders of a review read it
    std::string watch;    // ... as FindPodSpecs(nlohmann::json) reads it
    std::vector<std::string> errors;
  } cases[] = {
      {"a Pod's overhead",
       R"({"spec":{"containers":[{"name":"a"}],"overhead":{"nvidia.com/gpu":"1","cpu":"250m","x":1.50}}})",
       "cpu=250m,nvidia.com/gpu=1,x=1.50", "cpu=250m,nvidia.com/gpu=1,x=1.5", {}},
      {"a pod template's", R"({"spec":{"template":{"spec":{"containers":[{"name":"a"}],
           "overhead":{"nvidia.com/gpu":"2"}}}}})",
       "nvidia.com/gpu=2", "nvidia.com/gpu=2", {}},
      {"none", R"({"spec":{"containers":[{"name":"a"}]}})", "", "", {}},
      {"null is absent", R"({"spec":{"containers":[{"name":"a"}],"overhead":null}})", "", "", {}},
      {"an array", R"({"spec":{"containers":[{"name":"a"}],"overhead":["1"]}})", "", "",
       {"spec.overhead: must be object, got array"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    for (const auto& [frontEnd, view] : AllFrontEnds(c.object)) {
      SCOPED_TRACE(frontEnd);
      ASSERT_EQ(view.podSpecs.size(), 1u);
      std::string got;
      for (const auto& e : view.podSpecs[0].overhead) {
        got += (got.empty() ? "" : ",") + std::string(e.name) + "=" + std::string(e.value.text);
      }
      EXPECT_EQ(got, frontEnd == "FindPodSpecs(nlohmann::json)" ? c.watch : c.request);
      std::vector<std::string> errors;
      for (const auto& e : view.shapeErrors) errors.push_back(e.path + ": " + e.problem);
      EXPECT_EQ(errors, c.errors);
    }
  }
}

// nlohmann keeps the last of a repeated key (so does the apiserver, decoding Go structs);
// simdjson's DOM keeps every one, and its view picks the last, so the front ends agree.
TEST(PodSpecFinder, RepeatedKeysCountOnceWithTheirLastValue) {
  RunFinderCases({
      {"a repeated pod spec",
       R"({"spec":{"containers":[{"name":"first"}]},"spec":{"containers":[{"name":"second"}]}})",
       {"spec /spec |  "},
       {R"(spec.containers[0] "second" limits{} requests{} env{})"},
       {}},
      {"a repeated resource and a repeated name, the last one null",
       R"({"spec":{"containers":[{"name":"a","name":null,"resources":{
           "limits":{"nvidia.com/gpu":"1","cpu":"2","nvidia.com/gpu":"3"}}}]}})",
       {"spec /spec |  "},
       {R"(spec.containers[0] "" limits{cpu=2,nvidia.com/gpu=3} requests{} env{})"},
       {}},
      {"a repeated containers list, the last one of strings: not a pod spec",
       R"({"spec":{"containers":[{"name":"a"}],"containers":["a"]}})",
       {},
       {},
       {}},
  });
}

TEST(PodSpecFinder, NullIsAbsent) {
  RunFinderCases({
      {"null fields read as absent, without errors",
       R"({"metadata":{"annotations":null},"spec":{"schedulerName":null,"nodeName":null,
           "tolerations":null,"initContainers":null,"ephemeralContainers":null,
           "containers":[{"name":null,"resources":{"limits":null,"requests":null},"env":null,
             "securityContext":{"privileged":null},"restartPolicy":null}]}})",
       {"spec /spec | metadata /metadata"},
       {R"(spec.containers[0] "" limits{} requests{} env{})"},
       {}},
      {"a null env value and valueFrom",
       R"({"spec":{"containers":[{"name":"a","env":[{"name":"X","value":null,"valueFrom":null}]}]}})",
       {"spec /spec |  "},
       {R"(spec.containers[0] "a" limits{} requests{} env{X=})"},
       {}},
  });
  for (const auto& [frontEnd, view] : AllFrontEnds(
           R"({"metadata":{"annotations":null},"spec":{"schedulerName":null,"tolerations":null,
          "containers":[{"name":"a"}]}})")) {
    SCOPED_TRACE(frontEnd);
    ASSERT_EQ(view.podSpecs.size(), 1u);
    // Absent to the patch as well: a null list or map is added whole, a null scheduler added.
    EXPECT_FALSE(view.podSpecs[0].hasTolerations);
    EXPECT_FALSE(view.podSpecs[0].hasAnnotations);
    EXPECT_FALSE(view.podSpecs[0].hasSchedulerName);
  }
}

TEST(JsonPointerEscape, Table) {
  struct Case {
    std::string key;
    std::string want;
  } cases[] = {
      {"", ""},
      {"plain", "plain"},
      {"a/b~c", "a~1b~0c"},
      {"tencent.com/vcuda-core-limit", "tencent.com~1vcuda-core-limit"},
      {"~1", "~01"},  // decodes back to "~1", not to "/"
      {"//", "~1~1"},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(JsonPointerEscape(c.key), c.want) << c.key;
    // The escaped key is a pointer token nlohmann decodes back to the key.
    json obj = {{c.key, 1}};
    EXPECT_EQ(obj.value(json::json_pointer("/" + c.want), 0), 1) << c.key;
  }
}

// Builds `depth` levels of `open` ... `close` around `core` without recursion.
std::string Nested(size_t depth, std::string_view open, std::string_view core,
                   std::string_view close) {
  std::string out;
  out.reserve(depth * (open.size() + close.size()) + core.size());
  for (size_t i = 0; i < depth; ++i) out += open;
  out += core;
  for (size_t i = 0; i < depth; ++i) out += close;
  return out;
}

std::string Repeat(std::string_view text, size_t times) {
  std::string out;
  out.reserve(text.size() * times);
  for (size_t i = 0; i < times; ++i) out += text;
  return out;
}

TEST(PodSpecFinder, DeepNestingIsWalkedWithoutRecursion) {
  constexpr size_t kDepth = 100000;
  struct Case {
    std::string name;
    std::string body;
    size_t podSpecs;
  } cases[] = {
      {"arrays", Nested(kDepth, "[", "", "]"), 0},
      {"objects", Nested(kDepth, R"({"a":)", "{}", "}"), 0},
      {"arrays of objects", Nested(kDepth, R"([{"a":)", "1", "}]"), 0},
      // Every sibling sits 10,000 levels down: the walk must not copy the location per node.
      {"many siblings deep down", Nested(10000, "[", "{}" + Repeat(",{}", 100000), "]"), 0},
      {"a pod spec at the bottom",
       Nested(kDepth, R"({"a":)", R"({"spec":{"containers":[{"name":"deep"}]}})", "}"), 1},
  };
  for (auto& c : cases) {
    SCOPED_TRACE(c.name);
    // FindPodSpecs is given request.object, always a JSON object: wrap every body in one.
    json doc = json::parse("{\"x\":" + c.body + "}", nullptr, /*allow_exceptions=*/false);
    ASSERT_TRUE(doc.is_object());
    policy::ObjectView view = FindPodSpecs(doc);
    EXPECT_EQ(view.podSpecs.size(), c.podSpecs);
    EXPECT_EQ(Errors(view), std::vector<std::string>{});
    if (c.podSpecs == 1) {
      const policy::PodSpecView& pod = view.podSpecs[0];
      EXPECT_EQ(pod.path.size(),
                std::string("x.").size() + 2 * kDepth + std::string("spec").size());
      EXPECT_TRUE(pod.path.ends_with("a.a.spec"));
      EXPECT_TRUE(pod.pointer.ends_with("/a/a/spec"));
      ASSERT_EQ(pod.containers.size(), 1u);
      EXPECT_EQ(pod.containers[0].name, "deep");
    }
  }
}

// The request path parses with simdjson, which refuses more than 1,024 levels of arrays and
// objects (DecodeReview's tests cover the refusal); below that the three front ends agree.
TEST(PodSpecFinder, DeepNestingWithinTheParsersLimit) {
  constexpr size_t kDepth = 500;  // at most two levels each, plus the review's three
  struct Case {
    std::string name;
    std::string body;
    size_t podSpecs;
  } cases[] = {
      {"arrays", Nested(kDepth, "[", "", "]"), 0},
      {"objects", Nested(kDepth, R"({"a":)", "{}", "}"), 0},
      {"arrays of objects", Nested(kDepth, R"([{"a":)", "1", "}]"), 0},
      {"many siblings deep down", Nested(kDepth, "[", "{}" + Repeat(",{}", 100000), "]"), 0},
      {"a pod spec at the bottom",
       Nested(kDepth, R"({"a":)", R"({"spec":{"containers":[{"name":"deep"}]}})", "}"), 1},
  };
  for (auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto views = AllFrontEnds("{\"x\":" + c.body + "}");
    EXPECT_EQ(views.size(), 3u);
    for (const auto& [frontEnd, view] : views) {
      SCOPED_TRACE(frontEnd);
      EXPECT_EQ(view.podSpecs.size(), c.podSpecs);
      EXPECT_EQ(Errors(view), std::vector<std::string>{});
      if (c.podSpecs == 1) {
        EXPECT_EQ(view.podSpecs[0].pointer.size(), std::string("/x").size() + 2 * kDepth + 5);
        ASSERT_EQ(view.podSpecs[0].containers.size(), 1u);
        EXPECT_EQ(view.podSpecs[0].containers[0].name, "deep");
      }
    }
  }
}

}  // namespace
}  // namespace gpugate::review
