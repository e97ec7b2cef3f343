#include "cli/audit_scan.h"

#include "cli/object_fields.h"
#include "review/pod_spec_finder.h"

namespace gpugate::cli {
namespace {

// The built-in kinds with pod specs, those the shipped webhooks are sent (docs/deployment.md)
// and ReplicationControllers, which they are not, but whose every pod would be refused.
const AuditKind kBuiltInKinds[] = {
    {"Pod", "", "v1", "pods"},
    {"PodTemplate", "", "v1", "podtemplates"},
    {"ReplicationController", "", "v1", "replicationcontrollers"},
    {"Deployment", "apps", "v1", "deployments"},
    {"ReplicaSet", "apps", "v1", "replicasets"},
    {"StatefulSet", "apps", "v1", "statefulsets"},
    {"DaemonSet", "apps", "v1", "daemonsets"},
    {"Job", "batch", "v1", "jobs"},
    {"CronJob", "batch", "v1", "cronjobs"},
};

policy::NamespaceLabels LabelsOf(const AuditContext& context, std::string_view ns) {
  auto it = context.labels.find(ns);
  return it == context.labels.end() ? policy::NamespaceLabels{} : it->second;
}

}  // namespace

std::string AuditKind::Name() const { return group.empty() ? resource : resource + "." + group; }

std::string AuditKind::CollectionPath(std::string_view ns) const {
  std::string path = group.empty() ? "/api/" + version : "/apis/" + group + "/" + version;
  if (!ns.empty()) path += "/namespaces/" + std::string(ns);
  return path + "/" + resource;
}

std::vector<AuditKind> AuditKinds(const config::AuditConfig& audit) {
  std::vector<AuditKind> kinds(std::begin(kBuiltInKinds), std::end(kBuiltInKinds));
  for (const config::CustomResource& r : audit.customResources) {
    kinds.push_back({"", r.group, r.version, r.resource});
  }
  return kinds;
}

std::optional<admission::Unjudged> AuditObject(const nlohmann::json& object, const AuditKind& kind,
                                               const AuditContext& context,
                                               std::vector<AuditFinding>& findings) {
  const std::string ns = StringAt(object, {"metadata", "namespace"});
  const bool deleting = !StringAt(object, {"metadata", "deletionTimestamp"}).empty();
  const admission::Lifecycle lifecycle =
      admission::LifecycleOf(kind.IsPod(), deleting, StringAt(object, {"status", "phase"}));
  const admission::Judge judge(context.settings, &context.quota);
  // Asked before the pod specs are found: most of what is skipped is finished Pods.
  if (auto unjudged = judge.Skips(ns, lifecycle)) return unjudged;
  const policy::ObjectView view = review::FindPodSpecs(object);
  const admission::Verdict verdict =
      judge.Decide({.object = view, .ns = ns, .isPod = kind.IsPod(), .lifecycle = lifecycle},
                   LabelsOf(context, ns), admission::Asked::kCreation);
  std::string kindName = kind.kind;
  if (kindName.empty()) {  // a custom resource: Job.batch.volcano.sh, apart from batch's Job
    kindName = StringAt(object, {"kind"});
    kindName = (kindName.empty() ? kind.resource : kindName) + "." + kind.group;
  }
  for (review::RuleFinding& f : verdict.Findings()) {
    findings.push_back({.ns = ns,
                        .kind = kindName,
                        .name = ObjectName(object),
                        .rule = std::move(f.rule),
                        .message = std::move(f.message),
                        .mode = f.mode});
  }
  return std::nullopt;
}

}  // namespace gpugate::cli
