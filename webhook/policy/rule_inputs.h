// What the rules read of an object, compared between an UPDATE's old and new object. An update
// that changes none of it cannot make the object any worse, so the handler admits it whatever
// the object's findings (docs/rules.md, "Updates"): a controller scaling a ReplicaSet that
// predates a rule, or a user labelling a running Pod, is never blocked for what neither can
// change. Pod Security Admission exempts such updates for the same reason.
#pragma once

#include <array>
#include <string_view>

#include "policy/flavor.h"
#include "policy/pod_view.h"
#include "policy/settings.h"

namespace gpugate::policy {

// The annotations a rule or the GPU-model pin reads. A rule that reads another must add it here;
// rule_inputs_test.cc checks that each one listed changes the comparison.
inline constexpr std::array<std::string_view, 3> kRuleAnnotations = {
    kVcudaCoreLimitAnnotation, kUseGpuTypeAnnotation, kNoUseGpuTypeAnnotation};

// Whether `before` and `after` give the rules the same input: the same pod specs at the same
// paths with the same containers (names, resources, env, privileged, restart policy), scheduler,
// nodeName, tolerations, node selector, required node affinity and kRuleAnnotations, and the
// same shape errors. Quantities compare by value ("0.5" and "500m" are the same); lists of
// containers, env and tolerations by position, as the rules report them.
bool SameRuleInputs(const ObjectView& before, const ObjectView& after);

}  // namespace gpugate::policy
