#include "cli/audit_scan.h"

#include "admission/flavor_check.h"
#include "admission/rule_check.h"
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

std::optional<Skipped> Skip(const nlohmann::json& object, const AuditKind& kind,
                            const AuditContext& context, std::string_view ns) {
  if (context.settings.IsExempt(ns)) return Skipped::kExempt;  // the handler's first test
  if (!StringAt(object, {"metadata", "deletionTimestamp"}).empty()) return Skipped::kDeleting;
  if (kind.IsPod()) {
    std::string phase = StringAt(object, {"status", "phase"});
    if (phase == "Succeeded" || phase == "Failed") return Skipped::kFinished;
  }
  return std::nullopt;
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

Skipped AuditObject(const nlohmann::json& object, const AuditKind& kind,
                    const AuditContext& context, std::vector<AuditFinding>& findings) {
  const std::string ns = StringAt(object, {"metadata", "namespace"});
  if (auto skipped = Skip(object, kind, context, ns)) return *skipped;
  const policy::Settings& settings = context.settings;
  const policy::NamespaceLabels labels = LabelsOf(context, ns);
  const policy::ObjectView view = review::FindPodSpecs(object);
  admission::RuleVerdict verdict = admission::JudgeRules(view, settings, ns, labels);
  // Quota per GPU model, as /validate asks it of a workload, or of a Pod's creation that /mutate
  // would not have pinned to the namespace's default model.
  const policy::Mode quotaMode = policy::ModeFor(settings.modes, ns, policy::kQuotaRule, labels);
  const bool unpinnable = kind.IsPod() && !policy::MutatesIn(settings.modes, ns, labels);
  for (const policy::PodSpecView& spec : view.podSpecs) {
    if (kind.IsPod() && spec.pointer != "/spec") continue;  // as the handler charges a Pod
    auto unpinned =
        admission::UnpinnedFinding(spec, ns, unpinnable, quotaMode, settings, context.quota);
    if (unpinned) verdict.findings.push_back(std::move(*unpinned));
  }
  std::string kindName = kind.kind;
  if (kindName.empty()) {  // a custom resource: Job.batch.volcano.sh, apart from batch's Job
    kindName = StringAt(object, {"kind"});
    kindName = (kindName.empty() ? kind.resource : kindName) + "." + kind.group;
  }
  for (review::RuleFinding& f : verdict.findings) {
    findings.push_back({.ns = ns,
                        .kind = kindName,
                        .name = ObjectName(object),
                        .rule = std::move(f.rule),
                        .message = std::move(f.message),
                        .mode = f.mode});
  }
  return Skipped::kNo;
}

}  // namespace gpugate::cli
