// The validation rule table. Each rule lives in its own file as a pure function of one pod spec
// and the settings (with the spec's managed resources found once: ManagedPod); it appends what it
// finds and never throws. Rules run in table order, and each reports in container order, so
// messages never change order between runs.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "policy/managed_pod.h"
#include "policy/pod_view.h"
#include "policy/settings.h"

namespace gpugate::policy {

struct Violation {
  std::string_view rule;  // the rule's name, e.g. "whole-units"; used as the metrics reason
  std::string message;    // names the container, field, resource and value
  // The container or field the message names, as it begins it (`spec.containers[0] "trainer":
  // nvidia.com/gpu limit`): what a short form of a long message keeps (review/notes.h).
  std::string subject;
};

// `pod` carries the pod spec, the settings and the spec's managed resources, found once for all
// the rules (policy/managed_pod.h).
using RuleCheck = void (*)(const ManagedPod& pod, std::vector<Violation>& out);

struct Rule {
  std::string_view name;
  RuleCheck check;
  std::string_view fix;  // what the user does about a finding, in a few words
};

// Every validation rule, in reporting order.
std::span<const Rule> Rules();

// A rule's fix (Rule::fix; also for "object-shape" and "quota"), "" for an unknown name.
std::string_view FixFor(std::string_view rule);

// Runs every rule over every pod spec of `object` (shape errors first). Empty means allowed.
std::vector<Violation> Validate(const ObjectView& object, const Settings& settings);

}  // namespace gpugate::policy
