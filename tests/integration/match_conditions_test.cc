// The webhooks' matchConditions (manifests/base/webhooks.yaml) run by a real CEL evaluator,
// @bufbuild/cel under Node (tests/cel/evaluate.cjs), over every golden review in tests/testdata/
// and over synthetic quota releases, workloads and each resource the shipped config manages.
// For every request a webhook's rules send it:
//   - a custom resource always matches (CEL cannot search its pod templates in general);
//   - a built-in kind matches exactly when its Pod or pod template asks for a managed resource,
//     sets NVIDIA_VISIBLE_DEVICES or carries the tencent.com/vcuda-core-limit annotation (for a
//     pod's status update: and reports Succeeded or Failed; a DELETE whose old object is
//     missing always matches);
//   - whatever gpugate would refuse, warn about, annotate, patch or charge matches.
// Needs node on PATH and the package in .tools/cel (tools/install-cel.sh, run by `make test`
// when npm is at hand, or `make cel`); without them the test is skipped, saying which is missing.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "admission/handler.h"
#include "config/config.h"
#include "gpugate_process.h"
#include "quota/ledger.h"
#include "review/admission_review.h"
#include "review/pod_spec_finder.h"
#include "test_paths.h"
#include "webhook_rules.h"

namespace gpugate::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kSource = GPUGATE_SOURCE_DIR;
const fs::path kModules = kSource / ".tools" / "cel" / "node_modules";

// The first executable `name` on PATH, or "".
std::string OnPath(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "";
  for (size_t start = 0; start <= dirs.size();) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    fs::path candidate = fs::path(dirs.substr(start, end - start)) / name;
    if (end > start && access(candidate.c_str(), X_OK) == 0) return candidate.string();
    start = end + 1;
  }
  return "";
}

// One webhook registration: its YAML (rules) and its match conditions.
struct Webhook {
  const char* kind;   // MutatingWebhookConfiguration, ValidatingWebhookConfiguration
  const char* route;  // the handler it calls
  YAML::Node node;
  std::vector<std::pair<std::string, std::string>> conditions;  // name, expression
};

std::vector<Webhook> ShippedWebhooks() {
  std::vector<Webhook> out = {{"MutatingWebhookConfiguration", "mutate", {}, {}},
                              {"ValidatingWebhookConfiguration", "validate", {}, {}}};
  for (const YAML::Node& doc : YAML::LoadAllFromFile((kSource / "manifests/base/webhooks.yaml"))) {
    for (Webhook& w : out) {
      if (doc["kind"].as<std::string>() != w.kind) continue;
      w.node = doc["webhooks"][0];
      for (const YAML::Node& c : w.node["matchConditions"]) {
        w.conditions.emplace_back(c["name"].as<std::string>(), c["expression"].as<std::string>());
      }
    }
  }
  return out;
}

// A review to evaluate: its request, what to call it in messages, and the config gpugate runs.
struct Case {
  std::string id;
  json request;
  policy::Settings settings;
};

bool IsBuiltInWorkload(const json& request) {
  static const std::set<std::string> kKinds = {"Pod",        "PodTemplate", "Deployment",
                                               "ReplicaSet", "StatefulSet", "DaemonSet",
                                               "Job",        "CronJob"};
  const std::string group = request["kind"].value("group", "");
  return (group.empty() || group == "apps" || group == "batch") &&
         kKinds.contains(request["kind"].value("kind", ""));
}

// What the condition must say for a built-in kind, decided from the object by gpugate's own
// reading of pod specs, not by CEL.
bool WantsGpugate(const json& request, const policy::Settings& settings) {
  const bool del = request.value("operation", "") == "DELETE";
  const json& object = request[del ? "oldObject" : "object"];
  if (object.is_null()) return true;
  if (request.value("subResource", "") == "status") {
    const std::string phase = object.value("/status/phase"_json_pointer, "");
    if (phase != "Succeeded" && phase != "Failed") return false;
  }
  for (const policy::PodSpecView& pod : review::FindPodSpecs(object).podSpecs) {
    if (pod.Annotation(policy::kVcudaCoreLimitAnnotation)) return true;
    for (const policy::ContainerView& c : pod.containers) {
      for (const auto* list : {&c.limits, &c.requests}) {
        for (const policy::ResourceEntry& e : *list) {
          if (settings.Find(e.name)) return true;
        }
      }
      for (const policy::EnvVarView& e : c.env) {
        if (e.name == policy::kNvidiaVisibleDevices) return true;
      }
    }
  }
  return false;
}

// Whether gpugate does something with the request on `route`: refuses it, warns, annotates,
// patches, or charges or releases quota (a ledger without limits, so any GPU pod is charged).
bool GpugateActs(const Case& c, const std::string& route) {
  auto request = review::DecodeReview(json{
      {"apiVersion", "admission.k8s.io/v1"},
      {"kind", "AdmissionReview"},
      {"request", c.request}}.dump());
  EXPECT_TRUE(request) << c.id << ": " << request.error().message;
  if (!request) return false;
  quota::Ledger ledger({}, nullptr);
  EXPECT_TRUE(ledger.Open());
  admission::Handler handler(c.settings, &ledger);
  if (request->operation != "CREATE") {  // so that a release has something to release
    json create = c.request;
    create["operation"] = "CREATE";
    create["object"] =
        c.request["operation"] == "DELETE" ? c.request["oldObject"] : c.request["object"];
    create.erase("subResource");
    auto created = review::DecodeReview(json{
        {"apiVersion", "admission.k8s.io/v1"},
        {"kind", "AdmissionReview"},
        {"request", create}}.dump());
    if (created) handler.Validate(*created);
  }
  const review::Decision d =
      route == "mutate" ? handler.Mutate(*request) : handler.Validate(*request);
  return !d.allowed || !d.patch.empty() || !d.warnings.empty() || !d.auditAnnotations.empty() ||
         d.reason == "charged" || d.reason == "released";
}

// `value` as k8s.io/apimachinery's unstructured converter leaves a typed object: what an
// `omitempty` tag drops is absent. Empty strings, lists and maps are dropped wherever they are (in
// Kubernetes' types nearly every such field is `omitempty`), so an expression that reads one
// without has() fails here as it fails on the API server. Nulls stay: a nil list without the tag
// (a pod's `containers`) is bound as null.
json WithoutEmpty(const json& value) {
  if (value.is_array()) {
    json out = json::array();
    for (const json& item : value) out.push_back(WithoutEmpty(item));
    return out;
  }
  if (!value.is_object()) return value;
  json out = json::object();
  for (const auto& [key, item] : value.items()) {
    json kept = WithoutEmpty(item);
    const bool empty = (kept.is_string() && kept.get_ref<const std::string&>().empty()) ||
                       ((kept.is_array() || kept.is_object()) && kept.empty());
    if (!empty) out[key] = std::move(kept);
  }
  return out;
}

// The variables matchConditions see, bound as kube-apiserver binds them (k8s.io/apiserver
// admission/plugin/cel: CreateAdmissionRequest, then convertObjectToUnstructured):
//   - `request` is an admission/v1 AdmissionRequest built from the request's attributes, not the
//     review gpugate receives: requestKind, requestResource and requestSubResource repeat kind,
//     resource and subResource; dryRun is always a bool; object and oldObject are null; options
//     is the operation's options or null. Its `omitempty` fields (subResource,
//     requestSubResource, name, namespace, and userInfo's username, uid, groups and extra) are
//     absent when empty, never "".
//   - `object` and `oldObject` are the objects converted the same way (WithoutEmpty), or null.
json Bindings(const json& review) {
  // GroupVersionKind and GroupVersionResource have no `omitempty`: "" stays.
  auto gv = [&](const char* field, const char* last) {
    const json in = review.value(field, json::object());
    return json{{"group", in.value("group", "")},
                {"version", in.value("version", "")},
                {last, in.value(last, "")}};
  };
  json request = {{"uid", review.value("uid", "")},
                  {"kind", gv("kind", "kind")},
                  {"resource", gv("resource", "resource")},
                  {"operation", review.value("operation", "")},
                  {"dryRun", review.value("dryRun", false)},
                  {"object", nullptr},
                  {"oldObject", nullptr},
                  {"options", review.value("options", json())}};
  request["requestKind"] = request["kind"];
  request["requestResource"] = request["resource"];
  for (const auto& [field, copies] : std::vector<std::pair<std::string, std::vector<std::string>>>{
           {"subResource", {"subResource", "requestSubResource"}},
           {"name", {"name"}},
           {"namespace", {"namespace"}}}) {
    const std::string value = review.value(field, "");
    if (value.empty()) continue;
    for (const std::string& copy : copies) request[copy] = value;
  }
  request["userInfo"] = WithoutEmpty(review.value("userInfo", json::object()));
  auto object = [&](const char* name) {
    const json value = review.value(name, json());
    return value.is_null() ? value : WithoutEmpty(value);
  };
  return {{"request", request}, {"object", object("object")}, {"oldObject", object("oldObject")}};
}

// Every golden review, with the config its case runs with.
std::vector<Case> GoldenCases() {
  std::vector<Case> out;
  for (const char* route : {"validate", "mutate"}) {
    for (const auto& entry : fs::directory_iterator(kSource / "tests/testdata" / route)) {
      std::string file = entry.path().filename().string();
      if (!file.ends_with(".request.json")) continue;
      std::string name = file.substr(0, file.size() - std::string(".request.json").size());
      Case c{std::string(route) + "/" + name,
             json::parse(ReadFile(entry.path().string()))["request"],
             {}};
      fs::path config = entry.path().parent_path() / (name + ".config.yaml");
      if (fs::exists(config)) {
        auto loaded = config::LoadConfigFile(config.string());
        EXPECT_TRUE(loaded) << loaded.error().message;
        if (loaded) c.settings = loaded->policy;
      }
      out.push_back(std::move(c));
    }
  }
  return out;
}

json PodWith(json container, json annotations = nullptr) {
  container["name"] = "c";
  container["image"] = "cuda:12";
  json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", "p"}, {"namespace", "team-a"}, {"uid", "uid-p"}}},
              {"spec", {{"containers", json::array({container})}}}};
  if (!annotations.is_null()) pod["metadata"]["annotations"] = annotations;
  return pod;
}

json Limits(const std::string& resource) {
  return {{"resources", {{"limits", {{resource, "1"}}}}}};
}

json Request(const std::string& group, const std::string& kind, const std::string& resource,
             const std::string& operation, json object, json oldObject = nullptr,
             const std::string& subResource = "") {
  json r = {{"uid", "u"},
            {"kind", {{"group", group}, {"version", "v1"}, {"kind", kind}}},
            {"resource", {{"group", group}, {"version", "v1"}, {"resource", resource}}},
            {"name", "p"},
            {"namespace", "team-a"},
            {"operation", operation},
            {"object", object},
            {"oldObject", oldObject}};
  if (!subResource.empty()) r["subResource"] = subResource;
  return r;
}

// `pod` as the pod template of each built-in owner.
std::vector<Case> Owners(const std::string& id, const json& pod) {
  json tmpl = {{"metadata", pod["metadata"].value("annotations", json()).is_null()
                                ? json::object()
                                : json{{"annotations", pod["metadata"]["annotations"]}}},
               {"spec", pod["spec"]}};
  auto owner = [&](const std::string& group, const std::string& kind, json spec) {
    return json{{"apiVersion", group.empty() ? "v1" : group + "/v1"},
                {"kind", kind},
                {"metadata", {{"name", "w"}, {"namespace", "team-a"}}},
                {"spec", std::move(spec)}};
  };
  json podTemplate = owner("", "PodTemplate", nullptr);
  podTemplate.erase("spec");
  podTemplate["template"] = tmpl;
  std::vector<Case> out = {
      {id + " as a Pod", Request("", "Pod", "pods", "CREATE", pod), {}},
      {id + " in a PodTemplate",
       Request("", "PodTemplate", "podtemplates", "UPDATE", podTemplate),
       {}},
      {id + " in a CronJob",
       Request("batch", "CronJob", "cronjobs", "CREATE",
               owner("batch", "CronJob", {{"jobTemplate", {{"spec", {{"template", tmpl}}}}}})),
       {}},
  };
  for (const auto& [group, kind, resource] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {"apps", "Deployment", "deployments"},
           {"apps", "ReplicaSet", "replicasets"},
           {"apps", "StatefulSet", "statefulsets"},
           {"apps", "DaemonSet", "daemonsets"},
           {"batch", "Job", "jobs"}}) {
    out.push_back(
        {id + " in a " + kind,
         Request(group, kind, resource, "CREATE", owner(group, kind, {{"template", tmpl}})),
         {}});
  }
  return out;
}

// What the goldens do not show: quota releases, every owner of a pod template, each way a pod is a
// GPU pod or not, and every resource the shipped config manages.
std::vector<Case> SyntheticCases(const policy::Settings& shipped) {
  std::vector<Case> out;
  auto add = [&out](std::vector<Case> more) {
    for (Case& c : more) out.push_back(std::move(c));
  };
  const json gpu = PodWith(Limits("nvidia.com/gpu"));
  const json cpu = PodWith({{"resources", {{"limits", {{"cpu", "1"}, {"memory", "1Gi"}}}}}});
  add(Owners("GPU pod", gpu));
  add(Owners("CPU pod", cpu));
  add(Owners("FPGA pod", PodWith(Limits("example.com/fpga"))));
  add(Owners("requests only", PodWith({{"resources", {{"requests", {{"amd.com/gpu", "1"}}}}}})));
  add(Owners(
      "env only",
      PodWith({{"env", json::array({{{"name", "NVIDIA_VISIBLE_DEVICES"}, {"value", "all"}}})}})));
  add(Owners("annotation only", PodWith(json::object(), {{"tencent.com/vcuda-core-limit", "0"}})));
  json init = cpu;
  init["spec"]["initContainers"] = json::array({{{"name", "i"}, {"image", "x"}}});
  init["spec"]["initContainers"][0].update(Limits("nvidia.com/mig-1g.5gb"));
  add(Owners("GPU init container", init));
  json withPhase = gpu, cpuWithPhase = cpu;
  for (const char* phase : {"Running", "Succeeded", "Failed"}) {
    withPhase["status"] = cpuWithPhase["status"] = {{"phase", phase}};
    out.push_back({std::string("GPU pod status ") + phase,
                   Request("", "Pod", "pods", "UPDATE", withPhase, gpu, "status"),
                   {}});
    out.push_back({std::string("CPU pod status ") + phase,
                   Request("", "Pod", "pods", "UPDATE", cpuWithPhase, cpu, "status"),
                   {}});
  }
  out.push_back({"GPU pod DELETE", Request("", "Pod", "pods", "DELETE", nullptr, gpu), {}});
  // What the API server leaves out of `request` when empty: a generateName pod's name (the
  // mutating webhook sees none), userInfo's fields; and what it sets: dryRun, options.
  json generated = Request("", "Pod", "pods", "CREATE", gpu);
  generated.erase("name");
  generated["object"]["metadata"].erase("name");
  generated["object"]["metadata"]["generateName"] = "p-";
  out.push_back({"GPU pod with generateName", generated, {}});
  json byUser = Request("", "Pod", "pods", "CREATE", cpu);
  byUser["userInfo"] = {{"username", "alice"}, {"uid", ""}, {"groups", json::array()}};
  out.push_back({"CPU pod by a user without groups", byUser, {}});
  json dryDelete = Request("", "Pod", "pods", "DELETE", nullptr, gpu);
  dryDelete["dryRun"] = true;
  dryDelete["options"] = {
      {"apiVersion", "meta.k8s.io/v1"}, {"kind", "DeleteOptions"}, {"gracePeriodSeconds", 30}};
  out.push_back({"GPU pod DELETE, dry run with options", dryDelete, {}});
  out.push_back({"CPU pod DELETE", Request("", "Pod", "pods", "DELETE", nullptr, cpu), {}});
  out.push_back({"GPU pod UPDATE", Request("", "Pod", "pods", "UPDATE", gpu, gpu), {}});
  out.push_back({"CPU pod UPDATE", Request("", "Pod", "pods", "UPDATE", cpu, cpu), {}});
  // Custom resources: always sent, GPUs or not.
  out.push_back({"Volcano Job without GPUs",
                 Request("batch.volcano.sh", "Job", "jobs", "CREATE",
                         {{"spec", {{"tasks", json::array({{{"template", cpu}}})}}}}),
                 {}});
  for (const policy::ManagedResource& r : shipped.resources) {
    std::string name = r.name;
    std::replace(name.begin(), name.end(), '*', 'x');
    out.push_back(
        {"managed " + name, Request("", "Pod", "pods", "CREATE", PodWith(Limits(name))), shipped});
  }
  return out;
}

// The shipped ConfigMap's config: the resources the manifests' conditions must name.
policy::Settings ShippedSettings() {
  YAML::Node configMap = YAML::LoadFile((kSource / "manifests/base/configmap.yaml").string());
  auto config =
      config::ParseConfig(configMap["data"]["config.yaml"].as<std::string>(), "configmap");
  EXPECT_TRUE(config) << config.error().message;
  return config ? config->policy : policy::Settings{};
}

// Runs every condition of every webhook over `cases` in one node process: case id -> webhook
// kind -> condition name -> the value (true, false or "error: ...").
Result<json> Evaluate(const std::string& node, const std::vector<Webhook>& webhooks,
                      const std::vector<Case>& cases) {
  json input = {{"expressions", json::object()}, {"cases", json::array()}};
  for (const Webhook& w : webhooks) {
    for (const auto& [name, expression] : w.conditions) {
      input["expressions"][std::string(w.kind) + "/" + name] = expression;
    }
  }
  for (const Case& c : cases) {
    json names = json::array();
    for (const auto& [name, expression] : input["expressions"].items()) names.push_back(name);
    input["cases"].push_back(
        {{"id", c.id}, {"expressions", names}, {"bindings", Bindings(c.request)}});
  }
  TempDir dir;
  dir.Write("input.json", input.dump());
  Exit run = RunProgram(node, {(kSource / "tests/cel/evaluate.cjs").string(), kModules.string(),
                               dir.File("input.json"), dir.File("output.json")});
  if (run.code != 0) return Fail("node " + std::to_string(run.code) + ": " + run.output);
  const json output = json::parse(ReadFile(dir.File("output.json")), nullptr, false);
  if (!output.is_object()) return Fail("node wrote no results: " + run.output);
  json results;
  for (const json& r : output["results"]) {
    results[r["id"].get<std::string>()] = r["values"];
  }
  return results;
}

TEST(MatchConditions, SendGpugateWhatItActsOnAndNothingWithoutGpus) {
  const std::string node = OnPath("node");
  if (node.empty()) {
    GTEST_SKIP() << "no node on PATH to run the CEL evaluator: run `make cel` (installs Debian's "
                    "nodejs and npm, then @bufbuild/cel)";
  }
  if (!fs::exists(kModules / "@bufbuild" / "cel" / "package.json")) {
    GTEST_SKIP() << "no @bufbuild/cel in .tools/cel: run `make cel` (npm ci of "
                    "tests/cel/package-lock.json)";
  }
  const std::vector<Webhook> webhooks = ShippedWebhooks();
  for (const Webhook& w : webhooks) ASSERT_FALSE(w.conditions.empty()) << w.kind;
  std::vector<Case> cases = GoldenCases();
  ASSERT_GE(cases.size(), 45u);
  for (Case& c : SyntheticCases(ShippedSettings())) cases.push_back(std::move(c));
  std::set<std::string> ids;
  for (const Case& c : cases) ASSERT_TRUE(ids.insert(c.id).second) << "two cases named " << c.id;
  auto results = Evaluate(node, webhooks, cases);
  ASSERT_TRUE(results) << results.error().message;
  ASSERT_EQ(results->size(), cases.size()) << results->dump().substr(0, 2000);

  int sent = 0, matched = 0, acted = 0;
  for (const Case& c : cases) {
    const json& r = c.request;
    const std::string resource =
        r["resource"].value("resource", "") +
        (r.value("subResource", "").empty() ? "" : "/" + r["subResource"].get<std::string>());
    const ApiResource api{r["kind"]["group"].get_ref<const std::string&>().c_str(),
                          r["kind"]["version"].get_ref<const std::string&>().c_str(),
                          resource.c_str()};
    for (const Webhook& w : webhooks) {
      if (!Covers(w.node, api, r.value("operation", ""))) continue;
      ++sent;
      const bool wants = !IsBuiltInWorkload(r) || WantsGpugate(r, c.settings);
      const bool acts = GpugateActs(c, w.route);
      for (const auto& [name, expression] : w.conditions) {
        const json& value = (*results)[c.id][std::string(w.kind) + "/" + name];
        SCOPED_TRACE(c.id + " -> " + w.kind + " " + name);
        if (!value.is_boolean()) {  // the API server would refuse the request (failurePolicy)
          ADD_FAILURE() << value.dump() << "\n" << Bindings(r).dump();
          continue;
        }
        EXPECT_EQ(value.get<bool>(), wants);
        if (acts) {
          EXPECT_TRUE(value.get<bool>()) << "gpugate acts on it";
        }
        matched += value.get<bool>();
        acted += acts;
      }
    }
  }
  // The cases exercise both sides of every condition.
  EXPECT_GT(matched, 40);
  EXPECT_GT(sent - matched, 20);
  EXPECT_GT(acted, 30);
}

}  // namespace
}  // namespace gpugate::testing
