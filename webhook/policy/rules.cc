#include "policy/checks.h"
#include "policy/modes.h"
#include "policy/rule.h"

namespace gpugate::policy {

std::span<const Rule> Rules() {
  // Reporting order: malformed values first, so later rules may skip what whole-units reports.
  static constexpr Rule kRules[] = {
      {kWholeUnitsRule, &CheckWholeUnits, "request a whole number, as a quantity string"},
      {kRequestsEqualLimitsRule, &CheckRequestsEqualLimits, "set the request equal to the limit"},
      {kMaxPerContainerRule, &CheckMaxPerContainer,
       "request no more than the maximum per container"},
      {kVcudaCoreSharesRule, &CheckVcudaCoreShares, "request below 100 or a multiple of 100"},
      {kCoreLimitAnnotationRule, &CheckCoreLimitAnnotation, "set an integer from 1 to 100"},
      {kVisibleDevicesEnvRule, &CheckVisibleDevicesEnv,
       "remove it and request a managed GPU resource"},
      {kPrivilegedGpuRule, &CheckPrivilegedGpu, "drop privileged, or request no GPUs"},
      {kSchedulerRule, &CheckScheduler,
       "use the scheduler the GPU resource requires, without nodeName"},
  };
  return kRules;
}

std::string_view FixFor(std::string_view rule) {
  if (rule == kObjectShapeRule) return "give the field the JSON type Kubernetes expects";
  if (rule == kQuotaRule) return "stay within the namespace's GPU quota (gpugate quota shows it)";
  for (const Rule& r : Rules()) {
    if (r.name == rule) return r.fix;
  }
  return "";
}

std::vector<Violation> Validate(const ObjectView& object, const Settings& settings) {
  std::vector<Violation> out;
  for (const ShapeError& e : object.shapeErrors) {
    out.push_back({kObjectShapeRule, e.path + ": " + e.problem, e.path});
  }
  for (const PodSpecView& pod : object.podSpecs) {
    const ManagedPod managed(pod, settings);
    for (const Rule& rule : Rules()) rule.check(managed, out);
  }
  return out;
}

}  // namespace gpugate::policy
