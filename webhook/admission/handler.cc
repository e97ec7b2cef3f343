#include "admission/handler.h"

#include "policy/mutation.h"
#include "policy/rule.h"
#include "review/json_patch.h"

namespace gpugate::admission {
namespace {

review::Decision DenyAll(const std::vector<policy::Violation>& violations) {
  std::string message;
  for (const auto& v : violations) {
    if (!message.empty()) message += "; ";
    message += v.message;
  }
  return review::Denied(std::string(violations.front().rule), std::move(message));
}

}  // namespace

std::optional<review::Decision> Handler::Skip(const review::AdmissionRequest& request) const {
  if (settings_.IsExempt(request.ns)) return review::Allowed("exempt-namespace");
  if (request.operation == "DELETE" || request.operation == "CONNECT") {
    return review::Allowed("not-checked");
  }
  if (!request.hasObject) return review::Allowed("no-object");
  return std::nullopt;
}

review::Decision Handler::Validate(const review::AdmissionRequest& request) const {
  if (auto skip = Skip(request)) return *skip;
  auto violations = policy::Validate(request.object, settings_);
  if (!violations.empty()) return DenyAll(violations);
  return review::Allowed(request.object.podSpecs.empty() ? "no-pod-spec" : "valid");
}

review::Decision Handler::Mutate(const review::AdmissionRequest& request) const {
  review::Decision validated = Validate(request);
  if (!validated.allowed) return validated;
  if (validated.reason == "exempt-namespace") return validated;
  if (!request.IsPod() || request.operation != "CREATE" || !request.subResource.empty()) {
    return review::Allowed("not-mutated");
  }
  for (const policy::PodSpecView& pod : request.object.podSpecs) {
    if (pod.pointer != "/spec") continue;
    policy::MutationPlan plan = policy::PlanMutation(pod, settings_);
    if (plan.Empty()) return review::Allowed("unchanged");
    return review::Patched("patched", review::BuildPatch(pod, plan));
  }
  return review::Allowed("no-pod-spec");
}

}  // namespace gpugate::admission
