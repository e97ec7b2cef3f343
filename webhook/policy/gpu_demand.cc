#include "policy/gpu_demand.h"

#include <algorithm>

#include "common/strings.h"
#include "policy/resource_values.h"

namespace gpugate::policy {

std::vector<std::string> RequestedManagedResources(const PodSpecView& pod,
                                                   const Settings& settings) {
  std::vector<std::string> out;
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
  std::vector<std::string> requested = RequestedManagedResources(pod, settings);
  if (requested.empty()) return std::nullopt;
  if (!settings.schedulerName.empty()) {
    return SchedulerRequirement{settings.schedulerName, "mutation.schedulerName"};
  }
  std::optional<SchedulerRequirement> found;
  for (const std::string& name : requested) {  // sorted: the first disagreement is stable
    const std::string& scheduler = settings.Find(name)->schedulerName;
    if (scheduler.empty()) continue;
    if (!found) {
      found = SchedulerRequirement{scheduler, name};
    } else if (found->scheduler != scheduler) {
      return Fail(found->source + " requires scheduler " + JsonQuote(found->scheduler) + " but " +
                  name + " requires scheduler " + JsonQuote(scheduler));
    }
  }
  return found;
}

}  // namespace gpugate::policy
