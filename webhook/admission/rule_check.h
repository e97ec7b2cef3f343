// The rules' verdict on one object in its namespace, in the words the webhook answers with: step 3
// of admission::Judge (judge.h), which the webhook, `gpugate check` and `gpugate audit` all ask,
// so none of them can word a finding, or resolve its mode, differently.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "policy/modes.h"
#include "policy/pod_view.h"
#include "policy/settings.h"
#include "review/notes.h"

namespace gpugate::admission {

struct RuleVerdict {
  // Every violation (policy::Validate) in reporting order, with its rule's mode in the namespace.
  std::vector<review::RuleFinding> findings;

  // Whether a finding in deny mode refuses the object.
  bool Denies() const;
  // The first deny-mode finding's rule: the denial's reason.
  std::string DenialReason() const;
  // Every deny-mode message in reporting order, joined by "; ": the denial's message.
  std::string DenialMessage() const;
};

// Runs every rule over every pod spec of `object` and gives each violation the mode
// policy::ModeFor resolves for its rule in `ns` (with the namespace's `labels`).
RuleVerdict JudgeRules(const policy::ObjectView& object, const policy::Settings& settings,
                       std::string_view ns, const policy::NamespaceLabels& labels);

}  // namespace gpugate::admission
