// Quota per GPU model at admission (docs/quota.md, "Quota per GPU model"). A GPU pod that pins no
// flavor could run on any model, so no flavor's limit could count it; in a namespace whose quota
// is set per flavor it is refused, naming the flavors to choose from, unless the namespace has a
// default flavor, which /mutate pins it to. A workload whose pod template would be refused so is
// refused itself, before its controller creates pods that all fail.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "policy/flavor.h"
#include "policy/pod_view.h"
#include "policy/settings.h"
#include "quota/accounting.h"
#include "review/notes.h"

namespace gpugate::admission {

// The flavors `ns` has a limit for (any "resource@flavor" hard limit), sorted.
std::vector<std::string> LimitedFlavors(const quota::Accounting& ledger, std::string_view ns);

// Whether /mutate's pin to the namespace's default flavor (DefaultFlavorPin) is still to come for
// a pod spec.
enum class DefaultPin {
  kAhead,   // a pod template (its pods are pinned as they are created), or a Pod whose creation
            // /mutate has yet to see and would pin (mutation on in its namespace)
  kPassed,  // a Pod as /validate sees it, after /mutate; or one /mutate would leave as it is
};

// Why a GPU pod spec that pins no flavor, in `ns`, is refused: the quota rule's finding (in
// `mode`), with a short form for a warning; nullopt when it is pinned, not a GPU pod, or `ns`
// limits no flavor, or when `ns` has a default flavor and its pin is still `ahead`. Past the pin,
// the message asks whether the mutating webhook is configured.
std::optional<review::RuleFinding> UnpinnedFinding(const policy::PodSpecView& spec,
                                                   std::string_view ns, DefaultPin pin,
                                                   policy::Mode mode,
                                                   const policy::Settings& settings,
                                                   const quota::Accounting& ledger);

// The node labels /mutate adds to pin a GPU pod in `ns` to the namespace's default flavor; empty
// when it has none, or the pod is pinned already (so mutation stays idempotent).
std::vector<std::pair<std::string, std::string>> DefaultFlavorPin(const policy::PodSpecView& spec,
                                                                  std::string_view ns,
                                                                  const quota::QuotaConfig& config);

}  // namespace gpugate::admission
