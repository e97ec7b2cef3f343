#include "policy/pod_facts.h"

namespace gpugate::policy {

const PodSpecView* OwnPodSpec(const ObjectView& pod) {
  for (const PodSpecView& spec : pod.podSpecs) {
    if (spec.pointer == "/spec") return &spec;
  }
  return nullptr;
}

bool IsFinishedPhase(std::string_view phase) { return phase == "Succeeded" || phase == "Failed"; }

}  // namespace gpugate::policy
