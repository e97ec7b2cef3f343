// Two facts about Pods that the webhook, the cluster sync and the commands all read, each
// decided here only: which of an object's pod specs is a Pod's own (the one charged and pinned,
// not a template it carries in an annotation or a custom field), and when a Pod has finished.
#pragma once

#include <string_view>

#include "policy/pod_view.h"

namespace gpugate::policy {

// The pod spec at the pointer "/spec" of a Pod's view; null when the Pod has none. Only for a
// Pod's view: in any other object, "/spec" is no pod spec the API server runs.
const PodSpecView* OwnPodSpec(const ObjectView& pod);

// Whether a Pod's status.phase says it has finished: "Succeeded" or "Failed". Its containers
// have stopped and will not restart, so it runs no more and holds no devices (nor quota).
bool IsFinishedPhase(std::string_view phase);

}  // namespace gpugate::policy
