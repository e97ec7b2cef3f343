// The validation rule table. Each rule lives in its own file as a pure function of one pod spec
// and the settings; it appends what it finds and never throws. Rules run in table order, and
// each reports in container order, so messages never change order between runs.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "policy/pod_view.h"
#include "policy/settings.h"

namespace gpugate::policy {

struct Violation {
  std::string_view rule;  // the rule's name, e.g. "whole-units"; used as the metrics reason
  std::string message;    // names the container, field, resource and value
};

using RuleCheck = void (*)(const PodSpecView& pod, const Settings& settings,
                           std::vector<Violation>& out);

struct Rule {
  std::string_view name;
  RuleCheck check;
};

// Every validation rule, in reporting order.
std::span<const Rule> Rules();

// Runs every rule over every pod spec of `object` (shape errors first). Empty means allowed.
std::vector<Violation> Validate(const ObjectView& object, const Settings& settings);

}  // namespace gpugate::policy
