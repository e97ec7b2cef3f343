// Facts about a pod spec's managed (GPU) resources that several rules and the mutation planner
// share. Pure functions of the view and the settings.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "policy/managed_pod.h"
#include "policy/pod_view.h"
#include "policy/settings.h"

namespace gpugate::policy {

// Managed resource names with a valid, positive quantity in any container's limits or requests
// (init and ephemeral included), sorted and unique. Invalid quantities are left to the rules.
// The names point into `pod`.
std::vector<std::string_view> RequestedManagedResources(const PodSpecView& pod,
                                                        const Settings& settings);

// A pod spec is a GPU pod when it requests any managed resource.
bool IsGpuPod(const PodSpecView& pod, const Settings& settings);

struct SchedulerRequirement {
  std::string scheduler;  // e.g. "volcano"
  std::string source;     // what asks for it: a resource name, or "mutation.schedulerName"
};

// The scheduler a GPU pod must use: mutation.schedulerName when set, else the schedulerName of
// the requested managed resources. nullopt when nothing names one. An error when two requested
// resources name different schedulers (the message names both).
Result<std::optional<SchedulerRequirement>> RequiredScheduler(const PodSpecView& pod,
                                                              const Settings& settings);
// The same, from the managed resources already found.
Result<std::optional<SchedulerRequirement>> RequiredScheduler(const ManagedPod& pod);

}  // namespace gpugate::policy
