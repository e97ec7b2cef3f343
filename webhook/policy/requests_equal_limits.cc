// requests-equal-limits: extended resources cannot be overcommitted, so Kubernetes requires a
// request to equal its limit and defaults a missing request to the limit. A request with no
// limit, or a different one, is refused by the API server with a message that does not say
// how to fix it; saying it here names the container and the fix.
#include "common/strings.h"
#include "policy/checks.h"
#include "policy/resource_values.h"

namespace gpugate::policy {

void CheckRequestsEqualLimits(const ManagedPod& managed, std::vector<Violation>& out) {
  const PodSpecView& pod = managed.spec();
  for (const ContainerView& c : pod.containers) {
    for (const ResourceValue& v : managed.Values(c)) {
      if (v.field != "request") continue;
      std::optional<Quantity> request = ValidWholeQuantity(*v.text);
      if (!request) continue;  // whole-units reports it
      const QuantityText* limitText = c.Limit(v.resource);
      if (limitText == nullptr) {
        out.push_back({kRequestsEqualLimitsRule,
                       DescribeValue(pod, c, v) + " has no limit; set the limit to the same value",
                       DescribeField(pod, c, v)});
        continue;
      }
      std::optional<Quantity> limit = ValidWholeQuantity(*limitText);
      if (limit && *limit != *request) {
        out.push_back(
            {kRequestsEqualLimitsRule,
             DescribeValue(pod, c, v) + " must equal its limit " + JsonQuote(limitText->text),
             DescribeField(pod, c, v)});
      }
    }
  }
}

}  // namespace gpugate::policy
