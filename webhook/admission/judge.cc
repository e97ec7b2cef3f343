#include "admission/judge.h"

#include "admission/flavor_check.h"
#include "policy/pod_facts.h"
#include "quota/pod_charge.h"

namespace gpugate::admission {

Lifecycle LifecycleOf(bool isPod, bool deleting, std::string_view phase) {
  if (deleting) return Lifecycle::kDeleting;
  if (isPod && policy::IsFinishedPhase(phase)) return Lifecycle::kFinished;
  return Lifecycle::kLive;
}

std::vector<review::RuleFinding> Verdict::Findings() const {
  std::vector<review::RuleFinding> all = rules.findings;
  all.insert(all.end(), unpinned.begin(), unpinned.end());
  return all;
}

std::optional<Unjudged> Judge::Skips(std::string_view ns, Lifecycle lifecycle) const {
  if (settings_.IsExempt(ns)) return Unjudged::kExempt;
  switch (lifecycle) {
    case Lifecycle::kDeleting:
      return Unjudged::kDeleting;
    case Lifecycle::kFinished:
      return Unjudged::kFinished;
    case Lifecycle::kLive:
      break;
  }
  return std::nullopt;
}

RuleVerdict Judge::Rules(const ObjectFacts& object, const policy::NamespaceLabels& labels) const {
  return JudgeRules(object.object, settings_, object.ns, labels);
}

Verdict Judge::Decide(const ObjectFacts& object, const policy::NamespaceLabels& labels,
                      Asked asked) const {
  Verdict verdict;
  verdict.unjudged = Skips(object.ns, object.lifecycle);
  if (verdict.unjudged) return verdict;
  verdict.rules = Rules(object, labels);
  if (!quota_) return verdict;
  verdict.quotaMode = policy::ModeFor(settings_.modes, object.ns, policy::kQuotaRule, labels);
  verdict.unpinned = Unpinned(object, labels, asked, verdict.quotaMode);
  const policy::PodSpecView* own = object.isPod ? policy::OwnPodSpec(object.object) : nullptr;
  if (own && asked != Asked::kValidateUpdate) {
    verdict.charge = quota::PodCharge(*own, settings_, quota_->config());
  }
  return verdict;
}

std::vector<review::RuleFinding> Judge::Unpinned(const ObjectFacts& object,
                                                 const policy::NamespaceLabels& labels, Asked asked,
                                                 policy::Mode quotaMode) const {
  std::vector<review::RuleFinding> found;
  if (!object.isPod) {  // a workload: its pods are pinned to the default as they are created
    for (const policy::PodSpecView& spec : object.object.podSpecs) {
      auto unpinned =
          UnpinnedFinding(spec, object.ns, DefaultPin::kAhead, quotaMode, settings_, *quota_);
      if (unpinned) found.push_back(std::move(*unpinned));
    }
    return found;
  }
  const policy::PodSpecView* own = policy::OwnPodSpec(object.object);
  if (!own || asked == Asked::kValidateUpdate) return found;
  // /validate sees a Pod after /mutate; a creation still has /mutate ahead, which pins the Pod
  // to the namespace's default flavor unless mutation is off there.
  const bool mutateAhead =
      asked == Asked::kCreation && policy::MutatesIn(settings_.modes, object.ns, labels);
  auto unpinned =
      UnpinnedFinding(*own, object.ns, mutateAhead ? DefaultPin::kAhead : DefaultPin::kPassed,
                      quotaMode, settings_, *quota_);
  if (unpinned) found.push_back(std::move(*unpinned));
  return found;
}

}  // namespace gpugate::admission
