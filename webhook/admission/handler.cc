#include "admission/handler.h"

#include <chrono>

#include "admission/rule_check.h"
#include "policy/mutation.h"
#include "quota/pod_charge.h"
#include "review/json_patch.h"

namespace gpugate::admission {
namespace {

bool IsPodResource(const review::AdmissionRequest& r) { return r.IsPod() && r.resource == "pods"; }

bool IsTerminal(const std::string& phase) { return phase == "Succeeded" || phase == "Failed"; }

const policy::PodSpecView* PodSpec(const review::AdmissionRequest& r) {
  for (const auto& pod : r.object.podSpecs) {
    if (pod.pointer == "/spec") return &pod;
  }
  return nullptr;
}

}  // namespace

Handler::Handler(policy::Settings settings, quota::Accounting* ledger)
    : settings_(std::move(settings)), ledger_(ledger) {}

std::optional<review::Decision> Handler::Check(const review::AdmissionRequest& request) const {
  if (settings_.IsExempt(request.ns)) return review::Allowed("exempt-namespace");
  if (request.operation == "DELETE" || request.operation == "CONNECT") {
    return review::Allowed("not-checked");
  }
  if (!request.hasObject) return review::Allowed("no-object");
  // Status writes come from the kubelet and controllers, not users; an object being deleted
  // must stay updatable so its finalizers can be removed, even if it predates gpugate's rules.
  if (!request.subResource.empty()) return review::Allowed("subresource");
  if (request.operation == "UPDATE" && request.objectMeta.deleting) {
    return review::Allowed("deleting");
  }
  return CheckRules(request.object, settings_);
}

review::Decision Handler::Validate(const review::AdmissionRequest& request) const {
  if (ledger_ && IsPodResource(request) && !settings_.IsExempt(request.ns)) {
    if (request.operation == "DELETE" && request.subResource.empty()) return Release(request);
    if (request.operation == "UPDATE" && request.subResource == "status" &&
        IsTerminal(request.phase)) {
      return Release(request);
    }
  }
  if (auto decided = Check(request)) return *decided;
  if (ledger_ && IsPodResource(request) && request.operation == "CREATE") return Charge(request);
  return review::Allowed(request.object.podSpecs.empty() ? "no-pod-spec" : "valid");
}

bool Handler::MayBlock(const review::AdmissionRequest& request) const {
  return ledger_ && IsPodResource(request) && !settings_.IsExempt(request.ns);
}

review::Decision Handler::Charge(const review::AdmissionRequest& request) const {
  const policy::PodSpecView* spec = PodSpec(request);
  if (!spec) return review::Allowed("valid");
  quota::Amounts amounts = quota::PodCharge(*spec, settings_, ledger_->config());
  if (amounts.empty()) return review::Allowed("valid");  // not a GPU pod: nothing to account
  quota::PodRef pod{request.ns,
                    request.objectMeta.name.empty() ? request.name : request.objectMeta.name,
                    request.objectMeta.uid};
  // Past the answer's deadline the API server has failed the request, or will have by the time
  // the answer arrives (the pod will not exist), so a charge now would hold quota for a pod that
  // never runs: answer without one.
  if (request.deadline && std::chrono::steady_clock::now() >= *request.deadline) {
    return review::Errored(
        504, "deadline-exceeded",
        "gpugate reached the quota charge after the API server's timeout for this review; "
        "nothing was charged");
  }
  auto reserved =
      ledger_->Reserve(pod, amounts, request.dryRun, request.deadline.value_or(quota::kNoDeadline));
  if (!reserved && request.deadline && std::chrono::steady_clock::now() >= *request.deadline) {
    return review::Errored(
        504, "deadline-exceeded",
        "gpugate could not record the quota charge before the API server's timeout for this "
        "review: " +
            reserved.error().message);
  }
  if (!reserved) {
    // The charge could not be made durable: refusing is the only answer that keeps quota exact.
    return review::Errored(
        500, "quota-unavailable",
        "gpugate could not record the quota charge: " + reserved.error().message);
  }
  switch (reserved->outcome) {
    case quota::ReserveOutcome::kExceeded:
      return review::Denied("quota-exceeded", reserved->message);
    case quota::ReserveOutcome::kAlreadyCharged:
      return review::Allowed("already-charged");
    case quota::ReserveOutcome::kChargedOverLimit:  // not asked for: every charge is enforced
    case quota::ReserveOutcome::kCharged:
      break;
  }
  return review::Allowed(request.dryRun ? "dry-run" : "charged");
}

review::Decision Handler::Release(const review::AdmissionRequest& request) const {
  if (request.dryRun) return review::Allowed("dry-run");
  const review::ObjectMeta& meta =
      request.operation == "DELETE" ? request.oldObjectMeta : request.objectMeta;
  quota::PodRef pod{request.ns, meta.name.empty() ? request.name : meta.name, meta.uid};
  auto released = ledger_->Release(pod, request.deadline.value_or(quota::kNoDeadline));
  if (!released) {
    // A failed journal write must not block a delete or a status update: the charge stays until
    // the next release of this pod, which errs on the side of the limit.
    return review::Allowed("release-failed");
  }
  return review::Allowed(*released ? "released" : "not-charged");
}

review::Decision Handler::Mutate(const review::AdmissionRequest& request) const {
  if (auto decided = Check(request)) {
    if (!decided->allowed || decided->reason == "exempt-namespace") return *decided;
  }
  if (!request.IsPod() || request.operation != "CREATE" || !request.subResource.empty()) {
    return review::Allowed("not-mutated");
  }
  const policy::PodSpecView* spec = PodSpec(request);
  if (!spec) return review::Allowed("no-pod-spec");
  policy::MutationPlan plan = policy::PlanMutation(*spec, settings_);
  if (plan.Empty()) return review::Allowed("unchanged");
  return review::Patched("patched", review::BuildPatch(*spec, plan));
}

}  // namespace gpugate::admission
