// The validation rules that rules.cc registers, one per file (whole_units.cc, ...). Declared
// here so that each rule's test can run it alone; everything else goes through Rules() and
// Validate() in rule.h. Each check is pure, appends in container order and never throws.
#pragma once

#include <string_view>
#include <vector>

#include "policy/managed_pod.h"
#include "policy/rule.h"
#include "policy/settings.h"

namespace gpugate::policy {

// The rule names double as the metrics reason label, so they are part of the interface.
inline constexpr std::string_view kWholeUnitsRule = "whole-units";
inline constexpr std::string_view kRequestsEqualLimitsRule = "requests-equal-limits";
inline constexpr std::string_view kMaxPerContainerRule = "max-per-container";
inline constexpr std::string_view kVcudaCoreSharesRule = "vcuda-core-shares";
inline constexpr std::string_view kCoreLimitAnnotationRule = "core-limit-annotation";
inline constexpr std::string_view kVisibleDevicesEnvRule = "visible-devices-env";
inline constexpr std::string_view kPrivilegedGpuRule = "privileged-gpu";
inline constexpr std::string_view kSchedulerRule = "scheduler";
inline constexpr std::string_view kObjectShapeRule = "object-shape";  // from ObjectView

void CheckWholeUnits(const ManagedPod& pod, std::vector<Violation>& out);
void CheckRequestsEqualLimits(const ManagedPod& pod, std::vector<Violation>& out);
void CheckMaxPerContainer(const ManagedPod& pod, std::vector<Violation>& out);
void CheckVcudaCoreShares(const ManagedPod& pod, std::vector<Violation>& out);
void CheckCoreLimitAnnotation(const ManagedPod& pod, std::vector<Violation>& out);
void CheckVisibleDevicesEnv(const ManagedPod& pod, std::vector<Violation>& out);
void CheckPrivilegedGpu(const ManagedPod& pod, std::vector<Violation>& out);
void CheckScheduler(const ManagedPod& pod, std::vector<Violation>& out);

}  // namespace gpugate::policy
