// The one judgement of an object: what /validate would decide about it, before anything is
// charged. The webhook's handler, `gpugate check` and `gpugate audit` each state the facts their
// own way (an AdmissionRequest, a manifest, a listed object) and ask the same Judge, so all three
// say the webhook's words by construction, not because three copies are kept in step.
//
// Judge::Decide follows this order, line by line:
//   1. an exempt namespace: nothing in it is judged (Unjudged::kExempt);
//   2. an object being deleted, or a finished Pod: not judged (kDeleting, kFinished; which of
//      the two is the facts', LifecycleOf);
//   3. the rules: every rule over every pod spec, each finding in its rule's mode in the
//      namespace (JudgeRules: policy::ModeFor with the namespace's labels);
//   4. the GPU-model pin, given a quota view: a GPU pod spec that chooses no model where the
//      namespace sets quota per model is the quota rule's finding (UnpinnedFinding), for every
//      pod spec of a workload, and for a Pod's own spec on its creation;
//   5. the charge, given a quota view: what a Pod's creation charges (quota::PodCharge of its
//      own spec).
// Steps 3 to 5 all run; which finding refuses first is the adapter's to answer (the handler stops
// at a rule's denial and charges after the pin; audit lists the pin's finding beside the rules').
//
// Pure: reads the settings and the quota view's configuration and limits, never charges.
// Thread-safe as long as the quota view is.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "admission/rule_check.h"
#include "policy/modes.h"
#include "policy/pod_view.h"
#include "policy/settings.h"
#include "quota/accounting.h"
#include "quota/amounts.h"
#include "review/notes.h"

namespace gpugate::admission {

// Where an object is in its life, as far as the judgement cares.
enum class Lifecycle {
  kLive,
  kDeleting,  // metadata.deletionTimestamp is set: going away; its finalizers must be removable
  kFinished,  // a Pod that Succeeded or Failed (policy::IsFinishedPhase): runs no more, holds
              // no quota
};

// An object's lifecycle from what it says: being deleted wins over finished; only a Pod's
// status.phase means anything.
Lifecycle LifecycleOf(bool isPod, bool deleting, std::string_view phase);

// What is asked about the object.
enum class Asked {
  kValidateCreate,  // /validate on its CREATE: /mutate has run, so a Pod's pins are final
  kValidateUpdate,  // /validate on an UPDATE: a Pod's pin and charge were settled at its creation
  kCreation,        // its creation through both webhooks (`check`, `audit`): /mutate still ahead
};

// What the judgement reads about one object.
struct ObjectFacts {
  const policy::ObjectView& object;  // its pod specs, and shape errors
  std::string_view ns;               // its namespace
  bool isPod = false;                // a core Pod: its own pod spec is charged and pinned
  Lifecycle lifecycle = Lifecycle::kLive;
};

// Why an object was not judged (steps 1 and 2).
enum class Unjudged { kExempt, kDeleting, kFinished };

struct Verdict {
  std::optional<Unjudged> unjudged;  // set: steps 1 or 2 decided, and everything below is empty
  RuleVerdict rules;                 // step 3
  // Step 4: the quota rule's findings, one per pod spec in document order, in `quotaMode`.
  std::vector<review::RuleFinding> unpinned;
  policy::Mode quotaMode = policy::Mode::kDeny;  // the quota rule's, where there is a quota view
  quota::Amounts charge;  // step 5; empty: not a GPU Pod, or not asked about its creation

  // Every finding in reporting order: the rules', then the pin's.
  std::vector<review::RuleFinding> Findings() const;
};

class Judge {
 public:
  // `quota` null: no GPU-model pin and no charge are judged (no ledger; `gpugate check`). Both
  // must outlive the judge, which is two pointers: cheap to make for each use.
  Judge(const policy::Settings& settings, const quota::Accounting* quota)
      : settings_(settings), quota_(quota) {}

  // Steps 1 and 2 alone: why an object in `ns` is not judged; nullopt: it is. Needs no pod
  // specs, so an adapter can ask it before it finds them.
  std::optional<Unjudged> Skips(std::string_view ns, Lifecycle lifecycle) const;

  // Step 3 alone, for an answer that is only ever a rule's refusal (/mutate).
  RuleVerdict Rules(const ObjectFacts& object, const policy::NamespaceLabels& labels) const;

  // Steps 1 to 5, with the namespace's `labels`.
  Verdict Decide(const ObjectFacts& object, const policy::NamespaceLabels& labels,
                 Asked asked) const;

 private:
  std::vector<review::RuleFinding> Unpinned(const ObjectFacts& object,
                                            const policy::NamespaceLabels& labels, Asked asked,
                                            policy::Mode quotaMode) const;

  const policy::Settings& settings_;
  const quota::Accounting* quota_;
};

}  // namespace gpugate::admission
