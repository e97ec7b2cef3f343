// GPU flavors: the GPU models a cluster's nodes carry (A100, T4...), each named by the node labels
// that identify it (NVIDIA GPU Feature Discovery's nvidia.com/gpu.product). A pod's flavors are
// the ones its pins leave open, whichever node the scheduler picks; quota per flavor charges a
// pod against each of them (docs/quota.md, "Quota per GPU model").
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "policy/pod_view.h"

namespace gpugate::policy {

struct Flavor {
  std::string name;  // a DNS label: "a100"
  // The labels every node of this flavor has, sorted by key: {nvidia.com/gpu.product: ...}.
  std::vector<std::pair<std::string, std::string>> nodeLabels;
  // The GPU type names HAMi's nvidia.com/use-gputype is matched against (case-insensitive
  // substrings, as HAMi matches them); empty: the values of nodeLabels.
  std::vector<std::string> gpuTypes;
};

// The HAMi annotations that pin a pod to GPU types (comma-separated keywords).
inline constexpr std::string_view kUseGpuTypeAnnotation = "nvidia.com/use-gputype";
inline constexpr std::string_view kNoUseGpuTypeAnnotation = "nvidia.com/nouse-gputype";

struct FlavorPin {
  // The pod constrains where it runs by a flavor: a nodeSelector entry or a required node
  // affinity expression on a label some flavor is defined by, or a HAMi GPU type annotation.
  bool pinned = false;
  // The flavors whose nodes the pod may run on, in the order configured. For a pod not pinned:
  // every flavor. Empty for a pinned pod: it runs only on nodes of no flavor.
  std::vector<std::string> flavors;
};

// The flavors `pod` may run on, from spec.nodeSelector, the required node affinity (a node must
// match one term; a term's expressions on labels a flavor does not define, and its matchFields,
// do not rule that flavor out) and the HAMi annotations.
FlavorPin PodFlavors(const PodSpecView& pod, std::span<const Flavor> flavors);

// "nvidia.com/gpu@a100": a resource or weighted figure counted for one flavor, in limits,
// charges and reports. '@' appears in no Kubernetes resource name, so the spelling is unambiguous.
std::string FlavoredName(std::string_view resource, std::string_view flavor);
// {"nvidia.com/gpu", "a100"} from "nvidia.com/gpu@a100"; nullopt for a name without a flavor.
std::optional<std::pair<std::string_view, std::string_view>> SplitFlavored(std::string_view name);

}  // namespace gpugate::policy
