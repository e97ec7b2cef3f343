// max-per-container: some sharing modes hand a container at most N devices (NVIDIA
// time-slicing refuses more than one replica per container); the device plugin would accept
// the pod and fail it at allocation, so it is refused here with the limit that applies.
#include "policy/checks.h"
#include "policy/resource_values.h"

namespace gpugate::policy {

void CheckMaxPerContainer(const ManagedPod& managed, std::vector<Violation>& out) {
  const PodSpecView& pod = managed.spec();
  for (const ContainerView& c : pod.containers) {
    for (const ResourceValue& v : managed.Values(c)) {
      if (!v.managed->maxPerContainer) continue;
      // The limit is what the container gets; a request counts only when it stands alone.
      if (v.field == "request" && c.Limit(v.resource) != nullptr) continue;
      std::optional<Quantity> q = ValidWholeQuantity(*v.text);
      int64_t max = *v.managed->maxPerContainer;
      if (!q || q->Compare(Quantity::FromInt(max)) <= 0) continue;
      out.push_back({kMaxPerContainerRule,
                     DescribeValue(pod, c, v) + " exceeds the maximum of " + std::to_string(max) +
                         " per container",
                     DescribeField(pod, c, v)});
    }
  }
}

}  // namespace gpugate::policy
