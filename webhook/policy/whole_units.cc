// whole-units: device plugins count GPUs (and vGPU memory or core shares) in whole units;
// Kubernetes accepts "0.5" for an extended resource only to fail the pod later, on the node.
#include "policy/checks.h"
#include "policy/resource_values.h"

namespace gpugate::policy {
namespace {

// The violation for one value, or "" when it is a non-negative whole number.
std::string Message(const PodSpecView& pod, const ContainerView& c, const ResourceValue& v) {
  if (v.text->wrongType) {
    return pod.ContainerLabel(c) + ": " + std::string(v.resource) + " " + std::string(v.field) +
           " must be a quantity string, got " + std::string(v.text->text);
  }
  Result<Quantity> q = ParseResourceQuantity(*v.text);
  if (!q) return DescribeValue(pod, c, v) + " is not a valid quantity";
  if (q->IsNegative()) return DescribeValue(pod, c, v) + " must not be negative";
  if (!q->IsWhole()) {
    return DescribeValue(pod, c, v) + " must be a whole number of " +
           std::string(UnitNoun(v.resource));
  }
  return "";
}

}  // namespace

void CheckWholeUnits(const ManagedPod& managed, std::vector<Violation>& out) {
  const PodSpecView& pod = managed.spec();
  for (const ContainerView& c : pod.containers) {
    for (const ResourceValue& v : managed.Values(c)) {
      std::string message = Message(pod, c, v);
      if (!message.empty()) {
        out.push_back({kWholeUnitsRule, std::move(message), DescribeField(pod, c, v)});
      }
    }
  }
}

}  // namespace gpugate::policy
