#include "cli/audit_scan.h"

#include <gtest/gtest.h>

#include "quota/usage_snapshot.h"

namespace gpugate::cli {
namespace {

using admission::Unjudged;
using nlohmann::json;
using policy::Mode;

json Container(const std::string& gpus) {
  return {
      {"name", "main"}, {"image", "x"}, {"resources", {{"limits", {{"nvidia.com/gpu", gpus}}}}}};
}

json PodSpec(const std::string& gpus) { return {{"containers", json::array({Container(gpus)})}}; }

json Pod(const std::string& ns, const std::string& name, const std::string& gpus) {
  return {{"metadata", {{"name", name}, {"namespace", ns}}}, {"spec", PodSpec(gpus)}};
}

json Deployment(const std::string& ns, const std::string& name, const std::string& gpus) {
  return {{"metadata", {{"name", name}, {"namespace", ns}}},
          {"spec", {{"template", {{"spec", PodSpec(gpus)}}}}}};
}

const AuditKind kPods{"Pod", "", "v1", "pods"};
const AuditKind kDeployments{"Deployment", "apps", "v1", "deployments"};

// "deny whole-units Pod/p: <message>" per finding.
std::vector<std::string> Render(const std::vector<AuditFinding>& findings) {
  std::vector<std::string> out;
  for (const AuditFinding& f : findings) {
    out.push_back(std::string(policy::ModeName(f.mode)) + " " + f.rule + " " + f.ns + " " + f.kind +
                  "/" + f.name + ": " + f.message);
  }
  return out;
}

class AuditObjectTest : public ::testing::Test {
 protected:
  AuditObjectTest() : snapshot_(quota::QuotaConfig{}) {
    settings_.exemptNamespaces = {"kube-system"};
    settings_.modes.namespaces.push_back({.pattern = "dev-*", .mode = Mode::kAudit});
    labels_["team-w"] = {.mode = Mode::kWarn};
  }

  std::optional<Unjudged> Audit(const json& object, const AuditKind& kind) {
    return AuditObject(object, kind, {settings_, labels_, snapshot_}, findings_);
  }

  policy::Settings settings_;
  std::map<std::string, policy::NamespaceLabels, std::less<>> labels_;
  quota::UsageSnapshot snapshot_;
  std::vector<AuditFinding> findings_;
};

TEST_F(AuditObjectTest, EachFindingInItsRulesModeWhereTheObjectIs) {
  EXPECT_EQ(Audit(Pod("team-a", "p", "0.5"), kPods), std::nullopt);
  EXPECT_EQ(Audit(Deployment("team-w", "d", "0.5"), kDeployments), std::nullopt);
  EXPECT_EQ(Audit(Pod("dev-1", "q", "0.5"), kPods), std::nullopt);
  EXPECT_EQ(Audit(Pod("team-a", "fine", "1"), kPods), std::nullopt);
  EXPECT_EQ(Render(findings_),
            (std::vector<std::string>{
                "deny whole-units team-a Pod/p: spec.containers[0] \"main\": nvidia.com/gpu limit "
                "\"0.5\" must be a whole number of GPUs",
                "warn whole-units team-w Deployment/d: spec.template.spec.containers[0] \"main\": "
                "nvidia.com/gpu limit \"0.5\" must be a whole number of GPUs",
                "audit whole-units dev-1 Pod/q: spec.containers[0] \"main\": nvidia.com/gpu limit "
                "\"0.5\" must be a whole number of GPUs"}));
}

TEST_F(AuditObjectTest, ExemptFinishedAndDeletingObjectsAreNotJudged) {
  json finished = Pod("team-a", "done", "0.5");
  finished["status"]["phase"] = "Succeeded";
  json failed = Pod("team-a", "failed", "0.5");
  failed["status"]["phase"] = "Failed";
  json running = Pod("team-a", "running", "0.5");
  running["status"]["phase"] = "Running";
  json deleting = Deployment("team-a", "going", "0.5");
  deleting["metadata"]["deletionTimestamp"] = "2024-05-01T12:00:00Z";
  EXPECT_EQ(Audit(Pod("kube-system", "k", "0.5"), kPods), Unjudged::kExempt);
  EXPECT_EQ(Audit(finished, kPods), Unjudged::kFinished);
  EXPECT_EQ(Audit(failed, kPods), Unjudged::kFinished);
  EXPECT_EQ(Audit(deleting, kDeployments), Unjudged::kDeleting);
  EXPECT_TRUE(findings_.empty());
  // A workload's status.phase means nothing: only a Pod's is read.
  json job = Deployment("team-a", "j", "0.5");
  job["status"]["phase"] = "Succeeded";
  EXPECT_EQ(Audit(job, kDeployments), std::nullopt);
  EXPECT_EQ(Audit(running, kPods), std::nullopt);
  EXPECT_EQ(findings_.size(), 2u);
}

TEST_F(AuditObjectTest, ACustomResourceIsNamedByItsOwnKindAndGroup) {
  const AuditKind volcano{"", "batch.volcano.sh", "v1alpha1", "jobs"};
  json job = {{"apiVersion", "batch.volcano.sh/v1alpha1"},
              {"kind", "Job"},
              {"metadata", {{"name", "vj"}, {"namespace", "team-a"}}},
              {"spec", {{"tasks", json::array({{{"template", {{"spec", PodSpec("2.5")}}}}})}}}};
  Audit(job, volcano);
  json nameless = job;
  nameless.erase("kind");
  Audit(nameless, volcano);
  ASSERT_EQ(findings_.size(), 2u);
  EXPECT_EQ(findings_[0].kind, "Job.batch.volcano.sh");
  EXPECT_EQ(findings_[1].kind, "jobs.batch.volcano.sh");
}

// Quota per GPU model: an unpinned GPU pod spec where the namespace has per-model limits.
TEST(AuditObject, UnpinnedGpuPodsWhereQuotaIsSetPerModel) {
  quota::QuotaConfig config;
  config.flavors = {{.name = "a100", .nodeLabels = {{"nvidia.com/gpu.product", "A100"}}}};
  config.limits["team-f"] = {{"nvidia.com/gpu@a100", 2000}};
  config.limits["team-d"] = {{"nvidia.com/gpu@a100", 2000}};
  config.defaultFlavors["team-d"] = "a100";
  quota::UsageSnapshot snapshot(config);
  policy::Settings settings;
  settings.modes.rules["quota"] = Mode::kWarn;
  std::map<std::string, policy::NamespaceLabels, std::less<>> labels;
  labels["team-d"] = {.mutate = false};  // /mutate would not pin its pods
  std::vector<AuditFinding> findings;
  AuditContext context{settings, labels, snapshot};
  json pinned = Pod("team-f", "pinned", "1");
  pinned["spec"]["nodeSelector"] = {{"nvidia.com/gpu.product", "A100"}};
  for (const json& object : {Pod("team-f", "unpinned", "1"), pinned, Pod("team-x", "free", "1"),
                             Pod("team-d", "unpinned-d", "1")}) {
    AuditObject(object, kPods, context, findings);
  }
  // A template in team-d is fine: its pods would be pinned... were /mutate on; a Deployment is
  // asked as /validate asks it, which allows it whenever the namespace has a default.
  AuditObject(Deployment("team-d", "d", "1"), kDeployments, context, findings);
  ASSERT_EQ(findings.size(), 2u) << ::testing::PrintToString(Render(findings));
  EXPECT_EQ(findings[0].name, "unpinned");
  EXPECT_EQ(findings[0].rule, "quota");
  EXPECT_EQ(findings[0].mode, Mode::kWarn);
  EXPECT_EQ(findings[0].message,
            "spec: namespace team-f sets GPU quota per model, and this pod does not choose one: "
            "pin it with spec.nodeSelector, a required node affinity or the annotation "
            "nvidia.com/use-gputype to one of a100 (nvidia.com/gpu.product=A100)");
  EXPECT_EQ(findings[1].name, "unpinned-d");
  EXPECT_TRUE(findings[1].message.ends_with(
      "is the gpugate mutating webhook configured, and mutation on, for this namespace?"))
      << findings[1].message;
}

TEST(AuditKinds, BuiltInsThenTheConfigsCustomResources) {
  config::AuditConfig audit{.customResources = {{"kubeflow.org", "v1", "pytorchjobs"}}};
  std::vector<std::string> names, paths;
  for (const AuditKind& kind : AuditKinds(audit)) {
    names.push_back(kind.Name());
    paths.push_back(kind.CollectionPath(names.size() == 1 ? "team-a" : ""));
  }
  EXPECT_EQ(names, (std::vector<std::string>{"pods", "podtemplates", "replicationcontrollers",
                                             "deployments.apps", "replicasets.apps",
                                             "statefulsets.apps", "daemonsets.apps", "jobs.batch",
                                             "cronjobs.batch", "pytorchjobs.kubeflow.org"}));
  EXPECT_EQ(paths.front(), "/api/v1/namespaces/team-a/pods");
  EXPECT_EQ(paths[1], "/api/v1/podtemplates");
  EXPECT_EQ(paths[3], "/apis/apps/v1/deployments");
  EXPECT_EQ(paths.back(), "/apis/kubeflow.org/v1/pytorchjobs");
}

}  // namespace
}  // namespace gpugate::cli
