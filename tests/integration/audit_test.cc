// `gpugate audit` against the stand-in API server loaded as a cluster being rolled out: pods and
// workloads that break rules in namespaces of every mode (by label and by config), some fine,
// finished, being deleted or exempt, more pods than two pages, GPUQuota records over their
// limits, a custom resource. The real binary runs in tests/testdata/audit/ with audit.config.yaml,
// and each case's exact output (stdout and stderr as one stream) and exit status are in
// tests/testdata/audit/golden/<case>.txt; UPDATE_GOLDEN=1 rewrites them, and a golden file no
// case writes fails the test. A real replica with the same config then shows that every finding
// is worded as /validate words it.
#include <gtest/gtest.h>
#include <httplib.h>

#include <filesystem>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "golden_files.h"
#include "review_builder.h"
#include "standin_cluster.h"
#include "test_paths.h"

namespace gpugate::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kAuditDir = fs::path(GPUGATE_SOURCE_DIR) / "tests" / "testdata" / "audit";
constexpr size_t kBulkPods = 1200;  // over two pages of 500: the pods' list takes three

// A pod spec with one container asking for `gpus` (limits and requests alike), merged with
// `extra` (fields of the spec; a "container" key is merged into the container).
json Spec(const std::string& gpus, json extra = json::object()) {
  json container = {
      {"name", "main"},
      {"image", "cuda:12"},
      {"resources",
       {{"limits", {{"nvidia.com/gpu", gpus}}}, {"requests", {{"nvidia.com/gpu", gpus}}}}}};
  if (extra.contains("container")) {
    container.merge_patch(extra["container"]);
    extra.erase("container");
  }
  json spec = {{"containers", json::array({container})}};
  spec.merge_patch(extra);
  return spec;
}

json Meta(const std::string& ns, const std::string& name) {
  return {{"name", name}, {"namespace", ns}};
}

// A Pod, or an object of `kind` with its pod spec where that kind keeps it.
json Object(const std::string& apiVersion, const std::string& kind, const std::string& ns,
            const std::string& name, json spec) {
  json object = {{"apiVersion", apiVersion}, {"kind", kind}, {"metadata", Meta(ns, name)}};
  json templ = {{"spec", std::move(spec)}};
  if (kind == "Pod") {
    object["spec"] = std::move(templ["spec"]);
  } else if (kind == "PodTemplate") {
    object["template"] = std::move(templ);
  } else if (kind == "CronJob") {
    object["spec"] = {{"schedule", "@daily"}, {"jobTemplate", {{"spec", {{"template", templ}}}}}};
  } else if (apiVersion.starts_with("batch.volcano.sh/")) {
    object["spec"] = {{"tasks", json::array({{{"name", "worker"}, {"template", templ}}})}};
  } else {
    object["spec"] = {{"template", std::move(templ)}};
  }
  return object;
}

struct Placed {
  std::string collection;  // /api/v1/namespaces/NS/pods, ...
  json object;
};

std::string Collection(const std::string& apiVersion, const std::string& ns,
                       const std::string& resource) {
  return (apiVersion == "v1" ? "/api/v1" : "/apis/" + apiVersion) + "/namespaces/" + ns + "/" +
         resource;
}

// The cluster every case audits.
std::vector<Placed> Workloads() {
  json fractional = Spec("0.5");
  json finishedPod = Object("v1", "Pod", "team-deny", "finished", Spec("0.5"));
  finishedPod["status"] = {{"phase", "Succeeded"}};
  json deleting = Object("apps/v1", "StatefulSet", "team-deny", "going", Spec("0.5"));
  deleting["metadata"]["deletionTimestamp"] = "2024-05-01T12:00:00Z";
  deleting["metadata"]["finalizers"] = {"example.com/hold"};
  json pinned =
      Spec("1", {{"nodeSelector", {{"nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB"}}}});
  return {
      // team-deny: no label, the default mode (deny).
      {Collection("v1", "team-deny", "pods"),
       Object("v1", "Pod", "team-deny", "fractional", fractional)},
      {Collection("v1", "team-deny", "pods"), finishedPod},
      {Collection("v1", "team-deny", "pods"), Object("v1", "Pod", "team-deny", "fine", Spec("1"))},
      {Collection("apps/v1", "team-deny", "deployments"),
       Object(
           "apps/v1", "Deployment", "team-deny", "trainer",
           Spec("2", {{"container", {{"resources", {{"requests", {{"nvidia.com/gpu", "1"}}}}}}}}))},
      {Collection("batch/v1", "team-deny", "jobs"),
       Object("batch/v1", "Job", "team-deny", "root",
              Spec("1", {{"container", {{"securityContext", {{"privileged", true}}}}}}))},
      {Collection("apps/v1", "team-deny", "statefulsets"), deleting},
      {Collection("batch.volcano.sh/v1alpha1", "team-deny", "jobs"),
       Object("batch.volcano.sh/v1alpha1", "Job", "team-deny", "vcjob", Spec("1.5"))},
      // team-warn: gpugate.io/mode=warn.
      {Collection("apps/v1", "team-warn", "deployments"),
       Object("apps/v1", "Deployment", "team-warn", "serve", fractional)},
      {Collection("batch/v1", "team-warn", "cronjobs"),
       Object("batch/v1", "CronJob", "team-warn", "nightly",
              Spec("1", {{"container",
                          {{"env", json::array({{{"name", "NVIDIA_VISIBLE_DEVICES"},
                                                 {"value", "all"}}})}}}}))},
      // team-audit: gpugate.io/mode=audit.
      {Collection("apps/v1", "team-audit", "daemonsets"),
       Object("apps/v1", "DaemonSet", "team-audit", "agent", fractional)},
      {Collection("apps/v1", "team-audit", "replicasets"),
       Object("apps/v1", "ReplicaSet", "team-audit", "old", fractional)},
      // dev-sandbox: labelled deny, but the config's dev-* entry (audit) wins.
      {Collection("v1", "dev-sandbox", "pods"),
       Object("v1", "Pod", "dev-sandbox", "scratch", fractional)},
      // team-typo: gpugate.io/mode=enforce, read as deny.
      {Collection("v1", "team-typo", "podtemplates"),
       Object("v1", "PodTemplate", "team-typo", "tpl", fractional)},
      {Collection("v1", "team-typo", "replicationcontrollers"),
       Object("v1", "ReplicationController", "team-typo", "rc", Spec("1"))},
      // team-flavor: quota per GPU model; an unpinned GPU pod is refused.
      {Collection("v1", "team-flavor", "pods"),
       Object("v1", "Pod", "team-flavor", "unpinned", Spec("1"))},
      {Collection("v1", "team-flavor", "pods"),
       Object("v1", "Pod", "team-flavor", "pinned", pinned)},
      // Exempt: never judged.
      {Collection("v1", "kube-system", "pods"),
       Object("v1", "Pod", "kube-system", "driver", fractional)},
      // On the pods' last page, after the bulk.
      {Collection("v1", "bulk", "pods"), Object("v1", "Pod", "bulk", "zz-late", fractional)},
  };
}

// A GPUQuota record in `ns` whose charges hold `amounts` per pod, for `pods` pods.
json GpuQuota(int pods, const json& amounts) {
  json charges = json::object();
  for (int i = 0; i < pods; ++i) {
    charges["p" + std::to_string(i)] = json::array({{{"uid", "uid-" + std::to_string(i)},
                                                     {"admitted", "2024-05-01T12:00:00.000Z"},
                                                     {"amounts", amounts}}});
  }
  return {{"apiVersion", "gpugate.io/v1alpha1"},
          {"kind", "GPUQuota"},
          {"metadata", {{"name", "gpugate"}}},
          {"status", {{"charges", charges}}}};
}

void Load(StandInCluster& cluster) {
  cluster.LabelNamespace("team-deny", json::object());
  cluster.LabelNamespace("team-warn", {{"gpugate.io/mode", "warn"}});
  cluster.LabelNamespace("team-audit", {{"gpugate.io/mode", "audit"}});
  cluster.LabelNamespace("dev-sandbox", {{"gpugate.io/mode", "deny"}});
  cluster.LabelNamespace("team-typo", {{"gpugate.io/mode", "enforce"}});
  for (const char* ns : {"team-flavor", "bulk", "kube-system"}) {
    cluster.LabelNamespace(ns, json::object());
  }
  StandInApiServer& api = cluster.api();
  for (Placed& p : Workloads()) {
    json created = api.Create(p.collection, std::move(p.object));
    ASSERT_FALSE(created.contains("status") && created["status"] == "Failure") << created.dump();
  }
  ASSERT_EQ(api.CreateMany(Collection("v1", "bulk", "pods"), kBulkPods,
                           [](size_t i) {
                             char name[16];
                             std::snprintf(name, sizeof name, "pod-%04zu", i);
                             return Object("v1", "Pod", "bulk", name, Spec("1"));
                           }),
            kBulkPods);
  // Quota: team-warn's config limit of 8 and ResourceQuota of 4 make 4, and 6 are charged (the
  // quota rule in warn mode admits past the limit); team-flavor holds 3 A100s of 2; team-deny is
  // at its limit, not over it; kube-system is exempt; team-typo's record cannot be read.
  cluster.LimitGpus("team-warn", 4);
  cluster.LimitGpus("team-deny", 2);
  cluster.LimitGpus("kube-system", 0);
  const std::string records = "/apis/gpugate.io/v1alpha1/namespaces/";
  api.Create(records + "team-warn/gpuquotas", GpuQuota(3, {{"nvidia.com/gpu", "2"}}));
  api.Create(records + "team-flavor/gpuquotas",
             GpuQuota(3, {{"nvidia.com/gpu", "1"}, {"nvidia.com/gpu@a100", "1"}}));
  api.Create(records + "team-deny/gpuquotas", GpuQuota(2, {{"nvidia.com/gpu", "1"}}));
  api.Create(records + "kube-system/gpuquotas", GpuQuota(1, {{"nvidia.com/gpu", "1"}}));
  json unreadable = GpuQuota(0, json::object());
  unreadable["status"]["charges"] = "garbled";
  api.Create(records + "team-typo/gpuquotas", unreadable);
}

StandInApiServer::Failure Forbidden(const std::string& path, const std::string& resource) {
  return {.method = "GET",
          .pathPrefix = path,
          .status = 403,
          .message = resource + " is forbidden: User \"operator\" cannot list resource \"" +
                     resource + "\"",
          .reason = "Forbidden"};
}

StandInApiServer::Failure NotFound(const std::string& path) {
  return {.method = "GET",
          .pathPrefix = path,
          .status = 404,
          .message = "the server could not find the requested resource",
          .reason = "NotFound"};
}

struct AuditCase {
  std::string name;  // golden/<name>.txt
  std::vector<std::string> args;
  int exitStatus;
  std::function<void(StandInApiServer&)> before;  // failures to inject; may be null
};

const AuditCase kCases[] = {
    {"all", {"--config", "audit.config.yaml"}, 1, nullptr},
    {"all-json", {"--config", "audit.config.yaml", "-o", "json"}, 1, nullptr},
    {"defaults", {}, 1, nullptr},  // no config: every rule denies, no flavors or custom resources
    {"namespace-warn", {"--config", "audit.config.yaml", "-n", "team-warn"}, 1, nullptr},
    {"namespace-audit", {"--config", "audit.config.yaml", "-n", "team-audit"}, 0, nullptr},
    // Pages of 100, and the pods' continue token expires once: the list starts again, and the
    // findings are those of "all".
    {"expired-continue",
     {"--config", "audit.config.yaml", "--chunk-size", "100"},
     1,
     [](StandInApiServer& api) { api.ExpireContinueTokens(1); }},
    // A kind the operator may not list: said, and the rest is still audited.
    {"forbidden",
     {"--config", "audit.config.yaml"},
     1,
     [](StandInApiServer& api) {
       api.InjectFailures(Forbidden("/apis/apps/v1/deployments", "deployments"));
     }},
    // Nothing denied in what could be read, but not everything could: exit status 2.
    {"forbidden-nothing-denied",
     {"--config", "audit.config.yaml", "-n", "team-audit"},
     2,
     [](StandInApiServer& api) {
       api.InjectFailures(
           Forbidden("/apis/apps/v1/namespaces/team-audit/replicasets", "replicasets"));
     }},
    // Kinds this cluster does not serve: notes, not errors.
    {"not-served",
     {"--config", "audit.config.yaml", "-n", "team-audit"},
     0,
     [](StandInApiServer& api) {
       api.InjectFailures(NotFound("/apis/kubeflow.org/"));
       api.InjectFailures(NotFound("/apis/gpugate.io/"));
     }},
};

std::string Render(const AuditCase& c, const Exit& run) {
  std::string command = "$ gpugate audit";
  for (const std::string& arg : c.args) command += " " + arg;
  return command + "\nexit status " + std::to_string(run.code) + "\n" + run.output;
}

// Runs `gpugate audit --kubeconfig KUBECONFIG ARGS` in tests/testdata/audit/.
Exit RunAudit(const std::string& kubeconfig, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"-c",           "cd \"$1\" && shift && exec \"$@\"",
                                   "sh",           kAuditDir.string(),
                                   GPUGATE_BINARY, "audit",
                                   "--kubeconfig", kubeconfig};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunProgram("/bin/sh", argv);
}

TEST(Audit, OutputAndExitStatusMatchGoldenFiles) {
  StandInCluster cluster;
  Load(cluster);
  GoldenFiles golden(kAuditDir / "golden");
  for (const AuditCase& c : kCases) {
    SCOPED_TRACE(c.name);
    if (c.before) c.before(cluster.api());
    const int expiredBefore = cluster.api().continuesExpired();
    const Exit run = RunAudit(cluster.kubeconfig(), c.args);
    EXPECT_EQ(run.code, c.exitStatus) << run.output;
    if (c.name == "expired-continue") {
      EXPECT_EQ(cluster.api().continuesExpired(), expiredBefore + 1);
    }
    golden.Compare(c.name + ".txt", Render(c, run));
  }
}

// Lines of `text` from the line starting with `from` to the next empty line.
std::vector<std::string> Section(const std::string& text, const std::string& from) {
  std::vector<std::string> lines;
  size_t at = text.find(from);
  while (at != std::string::npos && at < text.size() && text[at] != '\n') {
    size_t end = text.find('\n', at);
    lines.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  return lines;
}

// The findings do not depend on the page size or on a list started again.
TEST(Audit, PagesAndARestartedListChangeNothingButTheNote) {
  StandInCluster cluster;
  Load(cluster);
  const int pagesBefore = cluster.api().listPages();
  const Exit whole =
      RunAudit(cluster.kubeconfig(), {"--config", "audit.config.yaml", "--chunk-size", "0"});
  const int wholePages = cluster.api().listPages() - pagesBefore;
  const Exit paged = RunAudit(cluster.kubeconfig(), {"--config", "audit.config.yaml"});
  const int pages = cluster.api().listPages() - pagesBefore - wholePages;
  cluster.api().ExpireContinueTokens(1);
  const Exit restarted =
      RunAudit(cluster.kubeconfig(), {"--config", "audit.config.yaml", "--chunk-size", "7"});
  ASSERT_EQ(whole.code, 1) << whole.output;
  // One request per collection in one answer; the pods' list takes three pages of 500.
  EXPECT_EQ(pages, wholePages + 2);
  EXPECT_EQ(Section(paged.output, "NAMESPACE"), Section(whole.output, "NAMESPACE"));
  EXPECT_EQ(Section(restarted.output, "NAMESPACE"), Section(whole.output, "NAMESPACE"));
  EXPECT_EQ(Section(restarted.output, "scanned"), Section(whole.output, "scanned"));
  EXPECT_NE(restarted.output.find("listing again from the start"), std::string::npos)
      << restarted.output;
}

TEST(Audit, AClusterThatCannotBeReachedExitsTwo) {
  StandInCluster cluster;
  cluster.api().Stop();
  const Exit run = RunAudit(cluster.kubeconfig(), {});
  EXPECT_EQ(run.code, 2);
  EXPECT_TRUE(run.output.starts_with(
      "gpugate audit: cannot read the cluster: namespaces: list: GET https://127.0.0.1:"))
      << run.output;
}

TEST(Audit, UsageErrorsAndBadCredentialsExitTwo) {
  StandInCluster cluster;
  TempDir dir;
  std::string kubeconfig = ReadFile(cluster.kubeconfig());
  kubeconfig.replace(kubeconfig.find("stand-in-token"), 14, "wrong-token");
  dir.Write("kubeconfig", kubeconfig);
  const struct {
    std::string kubeconfig;
    std::vector<std::string> args;
    std::string output;
  } cases[] = {
      {dir.File("kubeconfig"),
       {},
       "gpugate audit: cannot read the cluster: namespaces: list: HTTP 401: Unauthorized\n"},
      {cluster.kubeconfig(),
       {"-n", "no-such-namespace"},
       "gpugate audit: cannot read the cluster: namespace no-such-namespace not found\n"},
      {cluster.kubeconfig(),
       {"--config", "no-such.yaml"},
       "gpugate audit: no-such.yaml: cannot read: No such file or directory\n"},
      {dir.File("missing"),
       {},
       "gpugate audit: cannot read " + dir.File("missing") + ": No such file or directory\n"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(::testing::PrintToString(c.args));
    const Exit run = RunAudit(c.kubeconfig, c.args);
    EXPECT_EQ(run.code, 2);
    EXPECT_EQ(run.output, c.output);
  }
}

// Every finding is worded as /validate words it: a replica with the same config, against the
// same cluster, is sent each object the audit names, and answers the deny-mode messages (joined
// by "; ") as its denial and the warn-mode ones as its warnings.
TEST(Audit, FindingsAreTheWebhooksOwnWords) {
  StandInCluster cluster(ReadFile((kAuditDir / "audit.config.yaml").string()));
  Load(cluster);
  GpugateServer& replica = cluster.AddReplica();
  const Exit run = RunAudit(cluster.kubeconfig(), {"--config", "audit.config.yaml", "-o", "json"});
  ASSERT_EQ(run.code, 1) << run.output;
  struct Expected {
    std::string deny;
    json warnings = json::array();
  };
  std::map<std::string, Expected> objects;  // "ns/Kind/name"
  const json report = json::parse(run.output);
  for (const json& f : report["findings"]) {
    Expected& e = objects[f["namespace"].get<std::string>() + "/" + f["kind"].get<std::string>() +
                          "/" + f["name"].get<std::string>()];
    if (f["mode"] == "deny")
      e.deny += (e.deny.empty() ? "" : "; ") + f["message"].get<std::string>();
    if (f["mode"] == "warn") e.warnings.push_back(f["message"]);
  }
  ASSERT_GE(objects.size(), 8u) << run.output;
  int compared = 0;
  for (const Placed& p : Workloads()) {
    const json& o = p.object;
    std::string kind = o["kind"];
    std::string apiVersion = o["apiVersion"];
    std::string group =
        apiVersion.find('/') == std::string::npos ? "" : apiVersion.substr(0, apiVersion.find('/'));
    std::string ns = o["metadata"]["namespace"], name = o["metadata"]["name"];
    // A custom resource's kind is written with its group: Job.batch.volcano.sh.
    const bool custom = group.find('.') != std::string::npos;
    auto found = objects.find(ns + "/" + kind + (custom ? "." + group : "") + "/" + name);
    if (found == objects.end()) continue;
    if (found->second.deny.empty() && found->second.warnings.empty()) continue;  // audit mode
    SCOPED_TRACE(found->first);
    std::string resource = p.collection.substr(p.collection.rfind('/') + 1);
    json review = MakeReview(o, {.group = group,
                                 .version = apiVersion.substr(apiVersion.find('/') + 1),
                                 .kind = kind,
                                 .resource = resource,
                                 .ns = ns,
                                 .uid = "req-" + name});
    auto res = replica.Client()->Post("/validate", review.dump(), "application/json");
    ASSERT_TRUE(res && res->status == 200) << (res ? res->body : "no answer");
    const json response = json::parse(res->body)["response"];
    if (!found->second.deny.empty()) {
      EXPECT_EQ(response["allowed"], false);
      EXPECT_EQ(response["status"]["message"], found->second.deny);
    } else {
      EXPECT_EQ(response["allowed"], true);
      EXPECT_EQ(response["warnings"], found->second.warnings);
    }
    ++compared;
  }
  EXPECT_GE(compared, 8);
}

}  // namespace
}  // namespace gpugate::testing
