// What /mutate changes on a GPU pod, decided from its view alone. The review layer turns a plan
// into JSON Patch operations (review/json_patch.h). A plan for an already-mutated pod is empty,
// which is what makes mutation idempotent under reinvocationPolicy IfNeeded.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "policy/pod_view.h"
#include "policy/settings.h"

namespace gpugate::policy {

struct MutationPlan {
  std::vector<TolerationView> addTolerations;  // in order: per resource (sorted), then configured
  std::optional<std::string> schedulerName;    // set spec.schedulerName to this
  std::optional<std::string> coreLimit;        // set the tencent.com/vcuda-core-limit annotation
  // Node labels to add to spec.nodeSelector: the namespace's default GPU flavor, for a GPU pod
  // that pins none (admission/flavor_check.h).
  std::vector<std::pair<std::string, std::string>> addNodeSelector;

  bool Empty() const {
    return addTolerations.empty() && !schedulerName && !coreLimit && addNodeSelector.empty();
  }
};

// Plans the mutation of one Pod's spec. A pod that requests no managed resource gets an empty
// plan. Assumes validation passed; where it did not (e.g. schedulers in conflict) the affected
// part of the plan is left out rather than guessed.
MutationPlan PlanMutation(const PodSpecView& pod, const Settings& settings);

// True when `existing` tolerates every taint that `wanted` tolerates (so adding `wanted` would
// change nothing): Kubernetes' toleration matching, with "" effect meaning all effects.
bool Covers(const TolerationView& existing, const TolerationView& wanted);

}  // namespace gpugate::policy
