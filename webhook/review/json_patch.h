// Builds the RFC 6902 JSON Patch that applies a MutationPlan to the pod it was planned for.
#pragma once

#include <string>

#include "policy/mutation.h"
#include "policy/pod_view.h"

namespace gpugate::review {

// The patch document as JSON text ("" for an empty plan). Paths are RFC 6901 pointers built from
// the view's pointers with keys escaped (tencent.com/vcuda-core-limit ->
// tencent.com~1vcuda-core-limit). Lists and maps that do not exist yet are added whole; existing
// ones are appended to.
std::string BuildPatch(const policy::PodSpecView& pod, const policy::MutationPlan& plan);

}  // namespace gpugate::review
