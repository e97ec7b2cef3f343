// One micro-benchmark per layer of a review's path, on the request bodies the load benchmarks
// send (bench/load/make_bodies.py, rebuilt here the same way so both describe the same requests):
//
//   3k   a typical GPU training pod (two containers, env, mounts, a toleration)
//   15k  the same pod with bulky metadata (last-applied-configuration, managedFields, env)
//   60k  the every-field Pod fixture with nvidia.com/gpu added, indented as the fixture is
//
//   BM_ParseQuantity     quantity (several forms)
//   BM_DecodeReview      review: simdjson (the request path) beside nlohmann (the old path, now
//                        DecodeReview's fallback), in bytes/s, so the ratio reads off directly
//   BM_WalkPodSpecs      review: the pod-spec walk alone over request.object of a parsed body
//                        (DecodeReview's share beyond simdjson's parse and the envelope)
//   BM_Validate          policy: every rule over the decoded request's pod specs
//   BM_BuildPatch        review: the mutation plan and its JSON Patch (3k pod)
//   BM_EncodeResponse    review: the response envelope, patched and denied
// The ledger's Reserve is BM_Reserve in ledger_bench.cc; a whole admission, BM_AdmitAndDeletePod
// in admission_bench.cc. docs/performance.md ("Per-layer micro-benchmarks") has a run.
#include <benchmark/benchmark.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "policy/mutation.h"
#include "policy/rule.h"
#include "quantity/quantity.h"
#include "review/admission_review.h"
#include "review/json_patch.h"
#include "review/pod_spec_walker.h"
#include "review/raw_json.h"

namespace gpugate {
namespace {

// Insertion-ordered, so the text matches Python's json.dumps of the same dicts.
using Json = nlohmann::ordered_json;

Json Review(const Json& pod) {
  const Json& meta = pod["metadata"];
  Json request = {{"uid", "705ab4f5-6393-11e8-b7cc-42010a800002"},
                  {"kind", {{"group", ""}, {"version", "v1"}, {"kind", "Pod"}}},
                  {"resource", {{"group", ""}, {"version", "v1"}, {"resource", "pods"}}},
                  {"requestKind", {{"group", ""}, {"version", "v1"}, {"kind", "Pod"}}},
                  {"requestResource", {{"group", ""}, {"version", "v1"}, {"resource", "pods"}}},
                  {"name", meta["name"]},
                  {"namespace", meta["namespace"]},
                  {"operation", "CREATE"},
                  {"userInfo",
                   {{"username", "system:serviceaccount:kube-system:job-controller"},
                    {"uid", "b0e2a4c1-3f5d-4e8a-9c71-2d6f0a1b9e33"},
                    {"groups",
                     {"system:serviceaccounts", "system:serviceaccounts:kube-system",
                      "system:authenticated"}}}},
                  {"object", pod},
                  {"oldObject", nullptr},
                  {"dryRun", false},
                  {"options", {{"kind", "CreateOptions"}, {"apiVersion", "meta.k8s.io/v1"}}}};
  return {{"apiVersion", "admission.k8s.io/v1"},
          {"kind", "AdmissionReview"},
          {"request", std::move(request)}};
}

Json TrainingPod() {
  Json gpu = {{"nvidia.com/gpu", "1"}, {"cpu", "8"}, {"memory", "32Gi"}};
  Json trainer = {
      {"name", "trainer"},
      {"image", "nvcr.io/nvidia/pytorch:24.01-py3"},
      {"command", {"torchrun", "--nproc_per_node=1", "train.py"}},
      {"args", {"--epochs=90", "--batch-size=256", "--data=/data/imagenet"}},
      {"env",
       {{{"name", "NCCL_DEBUG"}, {"value", "INFO"}},
        {{"name", "MASTER_ADDR"}, {"value", "resnet-train-0.resnet-train"}},
        {{"name", "MASTER_PORT"}, {"value", "29500"}},
        {{"name", "POD_NAME"},
         {"valueFrom", {{"fieldRef", {{"apiVersion", "v1"}, {"fieldPath", "metadata.name"}}}}}}}},
      {"ports", {{{"name", "dist"}, {"containerPort", 29500}, {"protocol", "TCP"}}}},
      {"resources", {{"limits", gpu}, {"requests", gpu}}},
      {"volumeMounts",
       {{{"name", "data"}, {"mountPath", "/data"}, {"readOnly", true}},
        {{"name", "dshm"}, {"mountPath", "/dev/shm"}},
        {{"name", "kube-api-access-7x2kq"},
         {"readOnly", true},
         {"mountPath", "/var/run/secrets/kubernetes.io/serviceaccount"}}}},
      {"terminationMessagePath", "/dev/termination-log"},
      {"terminationMessagePolicy", "File"},
      {"imagePullPolicy", "IfNotPresent"}};
  Json shipper = {
      {"name", "log-shipper"},
      {"image", "cr.fluentbit.io/fluent/fluent-bit:2.2"},
      {"resources",
       {{"requests", {{"cpu", "100m"}, {"memory", "64Mi"}}}, {"limits", {{"memory", "128Mi"}}}}},
      {"volumeMounts", {{{"name", "logs"}, {"mountPath", "/var/log/train"}}}},
      {"terminationMessagePath", "/dev/termination-log"},
      {"terminationMessagePolicy", "File"},
      {"imagePullPolicy", "IfNotPresent"}};
  const std::string jobUid = "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a";
  Json metadata = {
      {"name", "resnet-train-0"},
      {"generateName", "resnet-train-"},
      {"namespace", "team-vision"},
      {"uid", "3c0d9b7e-8f1a-4d2b-a6c5-91e0f7d4b218"},
      {"creationTimestamp", nullptr},
      {"labels",
       {{"app", "resnet-train"},
        {"team", "vision"},
        {"batch.kubernetes.io/job-name", "resnet-train"},
        {"batch.kubernetes.io/controller-uid", jobUid}}},
      {"annotations", {{"prometheus.io/scrape", "true"}, {"prometheus.io/port", "9400"}}},
      {"ownerReferences",
       {{{"apiVersion", "batch/v1"},
         {"kind", "Job"},
         {"name", "resnet-train"},
         {"uid", jobUid},
         {"controller", true},
         {"blockOwnerDeletion", true}}}}};
  Json volumes = {
      {{"name", "data"}, {"persistentVolumeClaim", {{"claimName", "imagenet"}}}},
      {{"name", "dshm"}, {"emptyDir", {{"medium", "Memory"}, {"sizeLimit", "16Gi"}}}},
      {{"name", "logs"}, {"emptyDir", Json::object()}},
      {{"name", "kube-api-access-7x2kq"},
       {"projected",
        {{"defaultMode", 420},
         {"sources",
          {{{"serviceAccountToken", {{"expirationSeconds", 3607}, {"path", "token"}}}}}}}}}};
  Json spec = {{"containers", {trainer, shipper}},
               {"restartPolicy", "Never"},
               {"schedulerName", "default-scheduler"},
               {"serviceAccountName", "trainer"},
               {"nodeSelector", {{"nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB"}}},
               {"tolerations",
                {{{"key", "node.kubernetes.io/not-ready"},
                  {"operator", "Exists"},
                  {"effect", "NoExecute"},
                  {"tolerationSeconds", 300}}}},
               {"volumes", volumes}};
  return {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", metadata}, {"spec", spec}};
}

// The training pod with metadata grown until its review is about `target` bytes.
Json BulkyPod(size_t target) {
  Json pod = TrainingPod();
  Json applied = pod;
  applied["metadata"].erase("uid");
  pod["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"] =
      applied.dump() + "\n";
  Json& env = pod["spec"]["containers"][0]["env"];
  pod["metadata"]["managedFields"] = Json::array();
  Json& managed = pod["metadata"]["managedFields"];
  for (int i = 0; Review(pod).dump().size() < target; ++i) {
    char n[12];
    std::snprintf(n, sizeof n, "%03d", i);
    env.push_back({{"name", std::string("TRAIN_OPTION_") + n},
                   {"value", std::string("value-") + n + "-" + std::string(24, 'x')}});
    if (i % 8 == 0) {
      Json envField = {
          {std::string(R"(k:{"name":"TRAIN_OPTION_)") + n + R"("})",
           {{".", Json::object()}, {"f:name", Json::object()}, {"f:value", Json::object()}}}};
      managed.push_back(
          {{"manager", "controller-" + std::to_string(i / 8)},
           {"operation", "Update"},
           {"apiVersion", "v1"},
           {"time", "2024-05-01T12:00:00Z"},
           {"fieldsType", "FieldsV1"},
           {"fieldsV1",
            {{"f:metadata", {{"f:labels", {{"f:label-" + std::to_string(i), Json::object()}}}}},
             {"f:spec",
              {{"f:containers", {{R"(k:{"name":"trainer"})", {{"f:env", envField}}}}}}}}}});
    }
  }
  return pod;
}

// The every-field fixture with a GPU, laid out as the fixture is (indented) in a compact review.
std::string FixtureReview() {
  std::ifstream in(std::string(GPUGATE_FIXTURES_DIR) + "/core.v1.Pod.json");
  std::stringstream text;
  text << in.rdbuf();
  Json pod = Json::parse(text.str());
  Json& resources = pod["spec"]["containers"][0]["resources"];
  resources["limits"]["nvidia.com/gpu"] = "1";
  resources["requests"]["nvidia.com/gpu"] = "1";
  Json review = Review(pod);
  review["request"]["object"] = "@OBJECT@";
  std::string out = review.dump();
  out.replace(out.find("\"@OBJECT@\""), 10, pod.dump(2));
  return out;
}

struct Body {
  std::string name;
  std::string text;
};

const std::vector<Body>& Bodies() {
  static const std::vector<Body> bodies = {
      {"3k", Review(TrainingPod()).dump()},
      {"15k", Review(BulkyPod(15 * 1024)).dump()},
      {"60k", FixtureReview()},
  };
  return bodies;
}

const review::AdmissionRequest& Decoded(size_t body) {
  static const std::vector<review::AdmissionRequest> decoded = [] {
    std::vector<review::AdmissionRequest> out;
    for (const Body& b : Bodies()) out.push_back(*review::DecodeReview(b.text));
    return out;
  }();
  return decoded[body];
}

void BM_ParseQuantity(benchmark::State& state, std::string text) {
  if (!ParseQuantity(text)) return state.SkipWithError("does not parse");
  for (auto _ : state) benchmark::DoNotOptimize(ParseQuantity(text));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK_CAPTURE(BM_ParseQuantity, integer, std::string("1"));
BENCHMARK_CAPTURE(BM_ParseQuantity, milli, std::string("500m"));
BENCHMARK_CAPTURE(BM_ParseQuantity, binary_si, std::string("32Gi"));
BENCHMARK_CAPTURE(BM_ParseQuantity, decimal, std::string("0.5"));
BENCHMARK_CAPTURE(BM_ParseQuantity, exponent, std::string("1.5e3"));
BENCHMARK_CAPTURE(BM_ParseQuantity, long_digits, std::string("123456789012345678901234567"));

using Decoder = Result<review::AdmissionRequest> (*)(std::string_view);

void BM_DecodeReview(benchmark::State& state, size_t body, Decoder decode) {
  const std::string& text = Bodies()[body].text;
  if (!decode(text)) return state.SkipWithError("does not decode");
  for (auto _ : state) benchmark::DoNotOptimize(decode(text));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
  state.counters["body_bytes"] = static_cast<double>(text.size());
}

void BM_Validate(benchmark::State& state, size_t body) {
  const review::AdmissionRequest& request = Decoded(body);
  const policy::Settings settings;
  for (auto _ : state) benchmark::DoNotOptimize(policy::Validate(request.object, settings));
  state.SetItemsProcessed(state.iterations());
  state.counters["violations"] =
      static_cast<double>(policy::Validate(request.object, settings).size());
}

void BM_WalkPodSpecs(benchmark::State& state, size_t body) {
  const std::string& text = Bodies()[body].text;
  simdjson::dom::parser parser;
  simdjson::dom::element object;
  if (parser.parse(text)["request"]["object"].get(object) != simdjson::SUCCESS) {
    return state.SkipWithError("no request.object");
  }
  const review::RawJsonFinder raw(text, "/request/object");
  const review::SimdjsonView json(&raw);
  for (auto _ : state) {
    policy::TextArena texts;
    benchmark::DoNotOptimize(review::WalkPodSpecs(json, object, texts, nullptr));
  }
  state.SetItemsProcessed(state.iterations());
}

// Runtime registration, so the names carry the body and the decoder side by side.
const bool kRegistered = [] {
  for (size_t i = 0; i < Bodies().size(); ++i) {
    const std::string& name = Bodies()[i].name;
    benchmark::RegisterBenchmark(("BM_DecodeReview/" + name + "/simdjson").c_str(), BM_DecodeReview,
                                 i, &review::DecodeReview);
    benchmark::RegisterBenchmark(("BM_DecodeReview/" + name + "/nlohmann").c_str(), BM_DecodeReview,
                                 i, &review::DecodeReviewWithNlohmann);
  }
  for (size_t i = 0; i < Bodies().size(); ++i) {
    benchmark::RegisterBenchmark(("BM_WalkPodSpecs/" + Bodies()[i].name).c_str(), BM_WalkPodSpecs,
                                 i);
  }
  for (size_t i = 0; i < Bodies().size(); ++i) {
    benchmark::RegisterBenchmark(("BM_Validate/" + Bodies()[i].name).c_str(), BM_Validate, i);
  }
  return true;
}();

void BM_BuildPatch(benchmark::State& state) {
  const policy::PodSpecView& pod = Decoded(0).object.podSpecs.at(0);
  const policy::Settings settings;
  if (policy::PlanMutation(pod, settings).Empty()) return state.SkipWithError("nothing to patch");
  for (auto _ : state) {
    benchmark::DoNotOptimize(review::BuildPatch(pod, policy::PlanMutation(pod, settings)));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_BuildPatch);

void BM_EncodeResponse(benchmark::State& state, bool denied) {
  const review::AdmissionRequest& request = Decoded(0);
  const policy::Settings settings;
  const policy::PodSpecView& pod = request.object.podSpecs.at(0);
  const review::Decision decision =
      denied ? review::Denied("privileged-gpu",
                              "spec.containers[0] \"trainer\": a privileged container may not "
                              "request nvidia.com/gpu; it would see every GPU on the node")
             : review::Patched("patched",
                               review::BuildPatch(pod, policy::PlanMutation(pod, settings)));
  for (auto _ : state) benchmark::DoNotOptimize(review::EncodeResponse(request, decision));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK_CAPTURE(BM_EncodeResponse, patched, false);
BENCHMARK_CAPTURE(BM_EncodeResponse, denied, true);

}  // namespace
}  // namespace gpugate
