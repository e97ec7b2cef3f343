// UPDATEs through the handler: an update is judged only where it changes a pod spec or an
// annotation a rule reads (Handler::Unchanged). Objects that predate gpugate's rules, or a
// namespace's move to deny, stay updatable by the controllers and users that cannot change them:
// legacy Pods, ReplicaSets, Deployments, Jobs and a custom resource, updated in metadata,
// replicas, status and template.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "admission/handler.h"
#include "config/config.h"
#include "review/admission_review.h"

namespace gpugate::admission {
namespace {

using nlohmann::json;

// A pod template whose trainer asks for `gpu` nvidia.com/gpu, limits and requests.
json Template(const json& gpu, const std::string& image = "cuda:12") {
  return {{"metadata", {{"labels", {{"app", "train"}}}}},
          {"spec",
           {{"containers", json::array({{{"name", "trainer"},
                                         {"image", image},
                                         {"resources",
                                          {{"limits", {{"nvidia.com/gpu", gpu}}},
                                           {"requests", {{"nvidia.com/gpu", gpu}}}}}}})}}}};
}

struct Kind {
  std::string group, version, kind, resource;
};

const Kind kPod{"", "v1", "Pod", "pods"};
const Kind kReplicaSet{"apps", "v1", "ReplicaSet", "replicasets"};
const Kind kDeployment{"apps", "v1", "Deployment", "deployments"};
const Kind kJob{"batch", "v1", "Job", "jobs"};
const Kind kPyTorchJob{"kubeflow.org", "v1", "PyTorchJob", "pytorchjobs"};

// An object of `kind` named `name` in team-a carrying `tmpl`, with `replicas` where it has any.
json Object(const Kind& kind, const std::string& name, const json& tmpl, int replicas = 1) {
  json o = {{"apiVersion", kind.group.empty() ? kind.version : kind.group + "/" + kind.version},
            {"kind", kind.kind},
            {"metadata",
             {{"name", name}, {"namespace", "team-a"}, {"uid", "uid-" + name}, {"labels", {}}}}};
  if (kind.kind == "Pod") {
    o["metadata"]["labels"] = tmpl["metadata"]["labels"];
    o["spec"] = tmpl["spec"];
    o["spec"]["nodeName"] = "node-1";
    o["status"] = {{"phase", "Running"}};
  } else if (kind.kind == "PyTorchJob") {
    o["spec"] = {{"pytorchReplicaSpecs",
                  {{"Master", {{"replicas", 1}, {"template", tmpl}}},
                   {"Worker", {{"replicas", replicas}, {"template", tmpl}}}}}};
  } else {
    o["spec"] = {{"template", tmpl}};
    if (kind.kind != "Job") o["spec"]["replicas"] = replicas;
    if (kind.kind == "Job") o["spec"]["parallelism"] = replicas;
  }
  return o;
}

json Update(const Kind& kind, const json& oldObject, const json& object,
            const std::string& subResource = "") {
  json request = {
      {"uid", "req"},
      {"kind", {{"group", kind.group}, {"version", kind.version}, {"kind", kind.kind}}},
      {"resource", {{"group", kind.group}, {"version", kind.version}, {"resource", kind.resource}}},
      {"name", object["metadata"]["name"]},
      {"namespace", "team-a"},
      {"operation", "UPDATE"},
      {"object", object},
      {"oldObject", oldObject}};
  if (!subResource.empty()) request["subResource"] = subResource;
  return {{"apiVersion", "admission.k8s.io/v1"}, {"kind", "AdmissionReview"}, {"request", request}};
}

json Create(const Kind& kind, const json& object) {
  json review = Update(kind, nullptr, object);
  review["request"]["operation"] = "CREATE";
  review["request"].erase("oldObject");
  return review;
}

policy::Settings SettingsFrom(const std::string& yaml) {
  auto config = config::ParseConfig(yaml, "gpugate.yaml");
  EXPECT_TRUE(config) << config.error().message;
  return config ? config->policy : policy::Settings{};
}

// "allowed REASON" or "denied REASON", then one line per warning and audit annotation.
std::string Answer(const Handler& handler, const json& review) {
  auto request = review::DecodeReview(review.dump());
  if (!request) return "decode error: " + request.error().message;
  const review::Decision d = handler.Validate(*request);
  std::string out = (d.allowed ? "allowed " : "denied ") + d.reason;
  for (const std::string& w : d.warnings) out += "\nwarning: " + w;
  for (const auto& a : d.auditAnnotations) out += "\naudit " + a.key + ": " + a.value;
  return out;
}

// What each change does to a legacy object with a fractional GPU, kind by kind.
enum class Change { kLabel, kReplicas, kStatus, kQuantityRespelled, kImage, kFixed };

json Changed(const Kind& kind, json o, Change change) {
  // The trainer of every pod template (a PyTorchJob's Master and Worker).
  std::vector<json*> trainers;
  if (kind.kind == "Pod") {
    trainers.push_back(&o["spec"]["containers"][0]);
  } else if (kind.kind == "PyTorchJob") {
    for (const char* role : {"Master", "Worker"}) {
      trainers.push_back(
          &o["spec"]["pytorchReplicaSpecs"][role]["template"]["spec"]["containers"][0]);
    }
  } else {
    trainers.push_back(&o["spec"]["template"]["spec"]["containers"][0]);
  }
  switch (change) {
    case Change::kLabel:
      o["metadata"]["labels"]["owner"] = "alice";
      o["metadata"]["annotations"] = {{"deployment.kubernetes.io/revision", "2"}};
      break;
    case Change::kReplicas:
      if (kind.kind == "Pod") o["spec"]["activeDeadlineSeconds"] = 600;  // a Pod's mutable field
      if (kind.kind == "PyTorchJob") o["spec"]["pytorchReplicaSpecs"]["Worker"]["replicas"] = 0;
      if (o["spec"].contains("replicas")) o["spec"]["replicas"] = 0;
      if (o["spec"].contains("parallelism")) o["spec"]["parallelism"] = 0;
      break;
    case Change::kStatus:
      o["status"] = {{"observedGeneration", 3}, {"phase", "Running"}};
      break;
    case Change::kQuantityRespelled:
      for (json* c : trainers) {
        (*c)["resources"]["limits"]["nvidia.com/gpu"] = "500m";
        (*c)["resources"]["requests"]["nvidia.com/gpu"] = 0.5;
      }
      break;
    case Change::kImage:
      (*trainers.back())["image"] = "cuda:13";
      break;
    case Change::kFixed:
      for (json* c : trainers) {
        (*c)["resources"]["limits"]["nvidia.com/gpu"] = "1";
        (*c)["resources"]["requests"]["nvidia.com/gpu"] = "1";
      }
      break;
  }
  return o;
}

TEST(HandlerUpdates, ALegacyObjectIsJudgedOnlyWhereAnUpdateChangesWhatTheRulesRead) {
  const Handler handler(SettingsFrom(""), nullptr);
  const struct {
    Change change;
    const char* name;
    const char* want;  // for every kind
  } kChanges[] = {
      {Change::kLabel, "labels and annotations", "allowed unchanged"},
      {Change::kReplicas, "replicas", "allowed unchanged"},
      {Change::kStatus, "status in the main resource", "allowed unchanged"},
      {Change::kQuantityRespelled, "0.5 written as 500m and as a number", "allowed unchanged"},
      {Change::kImage, "the template's image", "denied whole-units"},
      {Change::kFixed, "the GPU made whole", "allowed valid"},
  };
  for (const Kind& kind : {kPod, kReplicaSet, kDeployment, kJob, kPyTorchJob}) {
    const json legacy = Object(kind, "legacy", Template("0.5"));
    ASSERT_EQ(Answer(handler, Create(kind, legacy)).substr(0, 18), "denied whole-units")
        << kind.kind << ": the legacy object violates whole-units";
    for (const auto& c : kChanges) {
      std::string want = c.want;
      // A Pod's spec is immutable but for a few fields; any change to it is judged.
      if (kind.kind == "Pod" && c.change == Change::kReplicas) want = "denied whole-units";
      std::string got = Answer(handler, Update(kind, legacy, Changed(kind, legacy, c.change)));
      EXPECT_EQ(got.substr(0, got.find('\n')), want) << kind.kind << ": " << c.name;
    }
  }
}

TEST(HandlerUpdates, AnUnchangedUpdateKeepsItsFindingsOnRecord) {
  const json legacy = Object(kReplicaSet, "legacy", Template("0.5"));
  const json scaled = Changed(kReplicaSet, legacy, Change::kReplicas);
  const std::string finding =
      R"(spec.template.spec.containers[0] "trainer": nvidia.com/gpu limit "0.5" must be a whole )"
      R"(number of GPUs; spec.template.spec.containers[0] "trainer": nvidia.com/gpu request )"
      R"("0.5" must be a whole number of GPUs)";
  // Deny mode: admitted, and what deny would refuse is in the audit annotation.
  EXPECT_EQ(Answer(Handler(SettingsFrom(""), nullptr), Update(kReplicaSet, legacy, scaled)),
            "allowed unchanged\naudit whole-units: " + finding);
  // Warn mode: admitted with the warnings, as any update in warn mode.
  const std::string warned = Answer(Handler(SettingsFrom("modes: {default: warn}"), nullptr),
                                    Update(kReplicaSet, legacy, scaled));
  EXPECT_EQ(warned.substr(0, warned.find('\n')), "allowed unchanged");
  EXPECT_NE(warned.find("\nwarning: spec.template.spec.containers[0] \"trainer\": nvidia.com/gpu "
                        "limit \"0.5\""),
            std::string::npos)
      << warned;
}

TEST(HandlerUpdates, AnUpdateWithoutAnOldObjectIsJudgedAsNow) {
  const json legacy = Object(kDeployment, "legacy", Template("0.5"));
  json review = Update(kDeployment, legacy, Changed(kDeployment, legacy, Change::kLabel));
  review["request"].erase("oldObject");
  EXPECT_EQ(Answer(Handler(SettingsFrom(""), nullptr), review).substr(0, 18), "denied whole-units");
}

// The requests the Deployment and ReplicaSet controllers send when a user fixes a Deployment
// whose ReplicaSet predates the rule, in order (k8s.io/kubernetes pkg/controller/deployment:
// the new ReplicaSet created at 0 and scaled up, the old one scaled down and annotated, status
// written through the subresource). Before, step 5 was refused and the rollout never finished.
TEST(HandlerUpdates, AFixedDeploymentRollsOutWhileItsLegacyReplicaSetIsScaledDown) {
  const Handler handler(SettingsFrom(""), nullptr);
  const json oldDeployment = Object(kDeployment, "train", Template("0.5"), 2);
  const json oldReplicaSet = Object(kReplicaSet, "train-5d4f", Template("0.5"), 2);
  const json fixedDeployment = Changed(kDeployment, oldDeployment, Change::kFixed);
  const json newReplicaSet0 = Object(kReplicaSet, "train-7c9b", Template("1"), 0);
  const json newReplicaSet2 = Object(kReplicaSet, "train-7c9b", Template("1"), 2);
  json oldReplicaSet0 = Changed(kReplicaSet, oldReplicaSet, Change::kReplicas);
  json oldReplicaSetAnnotated = oldReplicaSet0;
  oldReplicaSetAnnotated["metadata"]["annotations"] = {
      {"deployment.kubernetes.io/desired-replicas", "2"}};
  json status = fixedDeployment;
  status["status"] = {{"updatedReplicas", 2}};
  const struct {
    const char* step;
    json review;
    const char* want;
  } kSteps[] = {
      {"1 user applies the fixed Deployment", Update(kDeployment, oldDeployment, fixedDeployment),
       "allowed valid"},
      {"2 new ReplicaSet created at 0", Create(kReplicaSet, newReplicaSet0), "allowed valid"},
      {"3 new ReplicaSet scaled to 2", Update(kReplicaSet, newReplicaSet0, newReplicaSet2),
       "allowed unchanged"},
      {"4 its Pods created", Create(kPod, Object(kPod, "train-7c9b-a", Template("1"))),
       "allowed valid"},
      {"5 legacy ReplicaSet scaled to 0", Update(kReplicaSet, oldReplicaSet, oldReplicaSet0),
       "allowed unchanged"},
      {"6 legacy ReplicaSet annotated", Update(kReplicaSet, oldReplicaSet0, oldReplicaSetAnnotated),
       "allowed unchanged"},
      {"7 Deployment status", Update(kDeployment, fixedDeployment, status, "status"),
       "allowed subresource"},
  };
  for (const auto& s : kSteps) {
    const std::string got = Answer(handler, s.review);
    EXPECT_EQ(got.substr(0, got.find('\n')), s.want) << s.step;
  }
}

}  // namespace
}  // namespace gpugate::admission
