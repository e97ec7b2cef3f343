#include "policy/gpu_demand.h"

#include <algorithm>
#include <span>

#include "common/strings.h"
#include "policy/resource_values.h"

namespace gpugate::policy {

std::vector<std::string_view> RequestedManagedResources(const PodSpecView& pod,
                                                        const Settings& settings) {
  const ManagedPod managed(pod, settings);
  return {managed.Requested().begin(), managed.Requested().end()};
}

bool IsGpuPod(const PodSpecView& pod, const Settings& settings) {
  return ManagedPod(pod, settings).IsGpuPod();
}

Result<std::optional<SchedulerRequirement>> RequiredScheduler(const PodSpecView& pod,
                                                              const Settings& settings) {
  return RequiredScheduler(ManagedPod(pod, settings));
}

Result<std::optional<SchedulerRequirement>> RequiredScheduler(const ManagedPod& pod) {
  std::span<const std::string_view> requested = pod.Requested();
  if (requested.empty()) return std::nullopt;
  const Settings& settings = pod.settings();
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
