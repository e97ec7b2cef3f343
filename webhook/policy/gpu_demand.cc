#include "policy/gpu_demand.h"

#include <algorithm>

#include "common/strings.h"
#include "policy/resource_values.h"

namespace gpugate::policy {

std::vector<std::string_view> RequestedManagedResources(const PodSpecView& pod,
                                                        const Settings& settings) {
  std::vector<std::string_view> out;
  for (const ContainerView& c : pod.containers) {
    for (const ResourceValue& v : ManagedValues(c, settings)) {
      Result<Quantity> q = ParseResourceQuantity(*v.text);
      if (q && !q->IsNegative() && !q->IsZero()) out.emplace_back(v.resource);
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

bool IsGpuPod(const PodSpecView& pod, const Settings& settings) {
  return !RequestedManagedResources(pod, settings).empty();
}

Result<std::optional<SchedulerRequirement>> RequiredScheduler(const PodSpecView& pod,
                                                              const Settings& settings) {
  std::vector<std::string_view> requested = RequestedManagedResources(pod, settings);
  if (requested.empty()) return std::nullopt;
  if (!settings.schedulerName.empty()) {
    return SchedulerRequirement{settings.schedulerName, "mutation.schedulerName"};
  }
  std::optional<SchedulerRequirement> found;
  for (std::string_view name : requested) {  // sorted: the first disagreement is stable
    const std::string& scheduler = settings.Find(name)->schedulerName;
    if (scheduler.empty()) continue;
    if (!found) {
      found = SchedulerRequirement{scheduler, std::string(name)};
    } else if (found->scheduler != scheduler) {
      return Fail(found->source + " requires scheduler " + JsonQuote(found->scheduler) + " but " +
                  std::string(name) + " requires scheduler " + JsonQuote(scheduler));
    }
  }
  return found;
}

}  // namespace gpugate::policy
