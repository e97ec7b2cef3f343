// What `gpugate audit` lists and how it judges each object it lists: by the webhook's own
// judgement (admission::Judge), asked about the object's creation today, so every message is the
// one /validate would send.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "admission/judge.h"
#include "cli/audit_report.h"
#include "config/config.h"
#include "policy/modes.h"
#include "policy/settings.h"
#include "quota/accounting.h"

namespace gpugate::cli {

// One collection audit lists: a kind with pod specs.
struct AuditKind {
  std::string kind;   // "Pod"; for a custom resource "", each item's own kind is used
  std::string group;  // "" for the core group
  std::string version;
  std::string resource;  // the plural in the API's paths

  bool IsPod() const { return group.empty() && resource == "pods"; }
  // "pods", "deployments.apps", "jobs.batch.volcano.sh": as kubectl and RBAC name it.
  std::string Name() const;
  // "v1", "apps/v1", "batch.volcano.sh/v1alpha1": as an apiVersion.
  std::string GroupVersion() const { return group.empty() ? version : group + "/" + version; }
  // /api/v1/pods, /apis/apps/v1/namespaces/NS/deployments, ...: every namespace's when `ns` is "".
  std::string CollectionPath(std::string_view ns) const;
};

// Pods, PodTemplates, ReplicationControllers, Deployments, ReplicaSets, StatefulSets,
// DaemonSets, Jobs, CronJobs, then `audit.customResources` in the config's order.
std::vector<AuditKind> AuditKinds(const config::AuditConfig& audit);

// What audit knows before it reads objects: the policy, the namespaces' gpugate labels (only
// those that carry one), and the limits that apply (a quota::UsageSnapshot).
struct AuditContext {
  const policy::Settings& settings;
  const std::map<std::string, policy::NamespaceLabels, std::less<>>& labels;
  const quota::Accounting& quota;
};

// Judges one listed object of `kind` as admission::Judge judges its creation, and appends what
// the webhook would find to `findings`: each rule's finding in its mode, then each GPU pod spec
// that pins no GPU model where the namespace sets quota per model (the quota rule's finding),
// which /validate would only reach after the rules. Returns why the object was not judged
// (exempt, being deleted, a finished Pod); nullopt: it was.
std::optional<admission::Unjudged> AuditObject(const nlohmann::json& object, const AuditKind& kind,
                                               const AuditContext& context,
                                               std::vector<AuditFinding>& findings);

}  // namespace gpugate::cli
