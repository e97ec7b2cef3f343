#include "policy/checks.h"
#include "policy/rule.h"

namespace gpugate::policy {

std::span<const Rule> Rules() {
  // Reporting order: malformed values first, so later rules may skip what whole-units reports.
  static constexpr Rule kRules[] = {
      {kWholeUnitsRule, &CheckWholeUnits},
      {kRequestsEqualLimitsRule, &CheckRequestsEqualLimits},
      {kMaxPerContainerRule, &CheckMaxPerContainer},
      {kVcudaCoreSharesRule, &CheckVcudaCoreShares},
      {kCoreLimitAnnotationRule, &CheckCoreLimitAnnotation},
      {kVisibleDevicesEnvRule, &CheckVisibleDevicesEnv},
      {kPrivilegedGpuRule, &CheckPrivilegedGpu},
      {kSchedulerRule, &CheckScheduler},
  };
  return kRules;
}

std::vector<Violation> Validate(const ObjectView& object, const Settings& settings) {
  std::vector<Violation> out;
  for (const ShapeError& e : object.shapeErrors) {
    out.push_back({kObjectShapeRule, e.path + ": " + e.problem});
  }
  for (const PodSpecView& pod : object.podSpecs) {
    for (const Rule& rule : Rules()) rule.check(pod, settings, out);
  }
  return out;
}

}  // namespace gpugate::policy
