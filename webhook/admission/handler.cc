#include "admission/handler.h"

#include <chrono>

#include "admission/flavor_check.h"
#include "common/deadline.h"
#include "policy/mutation.h"
#include "policy/pod_facts.h"
#include "policy/rule_inputs.h"
#include "quota/pod_charge.h"
#include "quota/release_edge.h"
#include "review/json_patch.h"

namespace gpugate::admission {
namespace {

bool IsPodResource(const review::AdmissionRequest& r) { return r.IsPod() && r.resource == "pods"; }

// The request's object as the judgement reads it. A Pod's phase is left out: the handler judges a
// write, and a finished Pod's writes are judged like any other (its status updates are a
// subresource, answered before).
ObjectFacts FactsOf(const review::AdmissionRequest& r) {
  const bool deleting = r.operation == "UPDATE" && r.objectMeta.deleting;
  return ObjectFacts{.object = r.object,
                     .ns = r.ns,
                     .isPod = r.IsPod(),
                     .lifecycle = LifecycleOf(r.IsPod(), deleting, /*phase=*/"")};
}

Asked AskedOf(const review::AdmissionRequest& r) {
  return r.operation == "CREATE" ? Asked::kValidateCreate : Asked::kValidateUpdate;
}

// Adds the GPU-model pin's findings to `findings`: the refusal, at the first in deny mode.
std::optional<review::Decision> PinRefusal(const std::vector<review::RuleFinding>& unpinned,
                                           std::vector<review::RuleFinding>& findings) {
  for (const review::RuleFinding& f : unpinned) {
    findings.push_back(f);
    if (f.mode == policy::Mode::kDeny) {
      return review::Denied("flavor-unpinned", f.message, review::NotesFor(findings));
    }
  }
  return std::nullopt;
}

// What a Pod's DELETE review says of the deletion it asks for (quota/release_edge.h).
quota::PodDeletion DeletionOf(const review::AdmissionRequest& r) {
  const review::PodLifecycle& old = r.oldPod;
  return quota::PodDeletion{.scheduled = !old.nodeName.empty(),
                            .finished = policy::IsFinishedPhase(old.phase),
                            .terminationGracePeriodSeconds = old.terminationGracePeriodSeconds,
                            .deleting = r.oldObjectMeta.deleting,
                            .deletionTimestamp = old.deletionTimestamp,
                            .deletionGracePeriodSeconds = old.deletionGracePeriodSeconds,
                            .gracePeriodSeconds = r.gracePeriodSeconds};
}

// The pod a request's metadata names (the old object's for a DELETE).
quota::PodRef PodOf(const review::AdmissionRequest& r) {
  return quota::PodRef{r.ns, std::string(r.ObjectName()), r.Meta().uid};
}

// A pods/status UPDATE that is not a dry run: the kubelet's reports of a pod's start and finish.
bool IsStatusWrite(const review::AdmissionRequest& r) {
  return r.operation == "UPDATE" && r.subResource == "status" && !r.dryRun;
}

bool PastDeadline(const review::AdmissionRequest& r) { return SteadyClock::now() >= r.deadline; }

// The answer to a charge the ledger made or refused; `findings` are the rules' (none in deny
// mode), to which a charge over the limit adds its own.
review::Decision ChargeAnswer(const quota::ReserveResult& reserved, policy::Mode quotaMode,
                              bool dryRun, std::vector<review::RuleFinding> findings) {
  using quota::ReserveOutcome;
  switch (reserved.outcome) {
    case ReserveOutcome::kExceeded:
      findings.push_back({std::string(policy::kQuotaRule), reserved.message, policy::Mode::kDeny});
      return review::Denied("quota-exceeded", reserved.message, review::NotesFor(findings));
    case ReserveOutcome::kRecordFull:  // nothing could be charged, whatever the mode
      findings.push_back({std::string(policy::kQuotaRule), reserved.message, policy::Mode::kDeny});
      return review::Denied("quota-record-full", reserved.message, review::NotesFor(findings));
    case ReserveOutcome::kAlreadyCharged:
      return review::Allowed("already-charged", review::NotesFor(findings));
    case ReserveOutcome::kChargedOverLimit:
      findings.push_back({std::string(policy::kQuotaRule), reserved.message, quotaMode});
      break;
    case ReserveOutcome::kCharged:
    // Answered as a charge: the reconciler records it from the pod watch (accounting.h).
    case ReserveOutcome::kAdmittedUncharged:
      break;
  }
  return review::Allowed(dryRun ? "dry-run" : "charged", review::NotesFor(findings));
}

}  // namespace

Handler::Handler(policy::Settings settings, quota::Accounting* ledger,
                 const policy::NamespaceLabelSource* namespaces, const usage::UsageView* usage)
    : settings_(std::move(settings)), ledger_(ledger), namespaces_(namespaces), usage_(usage) {}

std::optional<review::Decision> Handler::Unchecked(const review::AdmissionRequest& request) const {
  const ObjectFacts facts = FactsOf(request);
  const std::optional<Unjudged> unjudged = judge().Skips(facts.ns, facts.lifecycle);
  if (unjudged == Unjudged::kExempt) return review::Allowed("exempt-namespace");
  if (request.operation == "DELETE" || request.operation == "CONNECT") {
    return review::Allowed("not-checked");
  }
  if (!request.hasObject) return review::Allowed("no-object");
  // Status writes come from the kubelet and controllers, not users; an object being deleted
  // must stay updatable so its finalizers can be removed, even if it predates gpugate's rules.
  if (!request.subResource.empty()) return review::Allowed("subresource");
  if (unjudged == Unjudged::kDeleting) return review::Allowed("deleting");
  return std::nullopt;
}

bool Handler::Unchanged(const review::AdmissionRequest& request) {
  return request.operation == "UPDATE" && request.hasOldObject && request.samePodSpecs &&
         policy::SameRuleInputs(request.oldObject, request.object);
}

policy::NamespaceLabels Handler::Labels(const review::AdmissionRequest& request) const {
  return namespaces_ ? namespaces_->Labels(request.ns) : policy::NamespaceLabels{};
}

review::Decision Handler::Validate(const review::AdmissionRequest& request) const {
  if (ledger_ && IsPodResource(request) && !settings_.IsExempt(request.ns)) {
    if (request.operation == "DELETE" && request.subResource.empty()) return Delete(request);
    if (request.operation == "UPDATE" && request.subResource == "status") {
      if (policy::IsFinishedPhase(request.phase)) return Release(request);
      if (auto started = Start(request)) return *started;
    }
  }
  if (auto decided = Unchecked(request)) return *decided;
  Verdict verdict = judge().Decide(FactsOf(request), Labels(request), AskedOf(request));
  std::vector<review::RuleFinding>& findings = verdict.rules.findings;
  if (Unchanged(request)) {
    // Nothing the rules read changed, so the update cannot make the object worse, and refusing
    // it would block a controller (scaling an old ReplicaSet down) or a user (labelling a Pod)
    // over what neither can change here. What deny mode would refuse stays on record.
    for (review::RuleFinding& f : findings) {
      if (f.mode == policy::Mode::kDeny) f.mode = policy::Mode::kAudit;
    }
    return review::Allowed("unchanged", review::NotesFor(findings));
  }
  if (verdict.rules.Denies()) {
    return review::Denied(verdict.rules.DenialReason(), verdict.rules.DenialMessage(),
                          review::NotesFor(findings));
  }
  if (ledger_ && IsPodResource(request) && request.operation == "CREATE") {
    return Charge(request, std::move(verdict));
  }
  // A workload whose pods would be refused for choosing no GPU model: refused now.
  if (auto refused = PinRefusal(verdict.unpinned, findings)) return *refused;
  return review::Allowed(request.object.podSpecs.empty() ? "no-pod-spec" : "valid",
                         review::NotesFor(findings));
}

bool Handler::MayBlock(const review::AdmissionRequest& request) const {
  if (!ledger_ || !ledger_->MayWait()) return false;
  if (!IsPodResource(request) || settings_.IsExempt(request.ns)) return false;
  // The cases follow Validate's calls of the ledger: the two releases, then the charge.
  if (request.operation == "DELETE") return request.subResource.empty() && !request.dryRun;
  if (request.operation == "UPDATE") {
    if (!IsStatusWrite(request)) return false;
    if (policy::IsFinishedPhase(request.phase)) return true;
    return request.pod.startTime && ledger_->AwaitsStart(PodOf(request));
  }
  if (request.operation != "CREATE" || Unchecked(request)) return false;
  // A dry run still reads the ledger under its lock (held across a journal write) or through
  // the cluster's group commit, so it may wait too. A pod charged nothing never reaches the
  // ledger.
  const policy::PodSpecView* own = policy::OwnPodSpec(request.object);
  return own != nullptr && quota::MayCharge(*own, settings_);
}

bool Handler::Ready() const {
  return (!ledger_ || ledger_->Ready()) && (!namespaces_ || namespaces_->Ready());
}

review::Decision Handler::Charge(const review::AdmissionRequest& request, Verdict verdict) const {
  std::vector<review::RuleFinding>& findings = verdict.rules.findings;
  // Not a GPU pod: nothing to account.
  if (verdict.charge.empty()) return review::Allowed("valid", review::NotesFor(findings));
  // Past the answer's deadline the API server has failed the request, or will have by the time
  // the answer arrives (the pod will not exist), so a charge now would hold quota for a pod that
  // never runs: answer without one.
  if (PastDeadline(request)) {
    return review::Errored(
        504, "deadline-exceeded",
        "gpugate reached the quota charge after the API server's timeout for this review; "
        "nothing was charged");
  }
  // A GPU pod that chooses no model where quota is set per model: refused in the quota rule's
  // deny mode; in warn or audit mode charged (to no model) and reported.
  if (auto refused = PinRefusal(verdict.unpinned, findings)) return *refused;
  if (auto refused = BudgetRefusal(request, verdict.charge, findings)) return *refused;
  auto reserved = ledger_->Reserve({.pod = PodOf(request),
                                    .amounts = std::move(verdict.charge),
                                    .dryRun = request.dryRun,
                                    .enforce = verdict.quotaMode == policy::Mode::kDeny,
                                    .deadline = request.deadline});
  if (!reserved && PastDeadline(request)) {
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
  return ChargeAnswer(*reserved, verdict.quotaMode, request.dryRun, std::move(findings));
}

std::optional<review::Decision> Handler::BudgetRefusal(
    const review::AdmissionRequest& request, const quota::Amounts& charge,
    std::vector<review::RuleFinding>& findings) const {
  if (!usage_) return std::nullopt;
  const auto now = std::chrono::floor<std::chrono::seconds>(ledger_->Now());
  usage::BudgetCheck check = usage_->Check(request.ns, charge, now);
  if (check.state == usage::BudgetState::kWithin) return std::nullopt;
  const policy::Mode mode =
      policy::ModeFor(settings_.modes, request.ns, policy::kBudgetRule, Labels(request));
  if (check.state == usage::BudgetState::kNearing) {
    // An early warning refuses nothing, whatever the mode: deny mode warns.
    const policy::Mode warn = mode == policy::Mode::kAudit ? mode : policy::Mode::kWarn;
    findings.push_back({std::string(policy::kBudgetRule), std::move(check.message), warn});
    return std::nullopt;
  }
  findings.push_back({std::string(policy::kBudgetRule), check.message, mode});
  if (mode != policy::Mode::kDeny) return std::nullopt;
  return review::Denied("budget-spent", std::move(check.message), review::NotesFor(findings));
}

review::Decision Handler::Delete(const review::AdmissionRequest& request) const {
  if (request.dryRun) return review::Allowed("dry-run");
  const quota::DeletionState deletion = quota::DeletionAfter(DeletionOf(request), ledger_->Now());
  if (deletion.kind == quota::DeletionState::Kind::kRemovedNow) return Release(request);
  auto marked = ledger_->ReleaseAt(PodOf(request), deletion.ReleaseAt(), request.deadline);
  // Unrecorded, the charge counts until the pod's final DELETE: on the side of the limit.
  if (!marked) return review::Allowed("release-failed");
  return review::Allowed(*marked ? "terminating" : "not-charged");
}

std::optional<review::Decision> Handler::Start(const review::AdmissionRequest& request) const {
  // Asked first, from memory: only a start that will be written calls the ledger (MayBlock).
  const quota::PodRef pod = PodOf(request);
  if (!IsStatusWrite(request) || !request.pod.startTime || !ledger_->AwaitsStart(pod)) {
    return std::nullopt;
  }
  auto started = ledger_->RecordStart(pod, *request.pod.startTime, request.deadline);
  // Unrecorded, the pod accrues nothing yet; its next status update tries again.
  if (!started) return review::Allowed("start-failed");
  if (!*started) return std::nullopt;
  return review::Allowed("started");
}

review::Decision Handler::Release(const review::AdmissionRequest& request) const {
  if (request.dryRun) return review::Allowed("dry-run");
  // A pod that finishes before any status update reported its start: the start first, so the
  // release accrues [startTime, now).
  if (IsStatusWrite(request) && request.pod.startTime) (void)Start(request);
  const quota::PodRef pod = PodOf(request);
  auto released = ledger_->Release(pod, request.deadline);
  if (!released) {
    // A failed journal write must not block a delete or a status update: the charge stays until
    // the next release of this pod, which errs on the side of the limit.
    return review::Allowed("release-failed");
  }
  return review::Allowed(*released ? "released" : "not-charged");
}

review::Decision Handler::Mutate(const review::AdmissionRequest& request) const {
  if (settings_.IsExempt(request.ns)) return review::Allowed("exempt-namespace");
  const policy::NamespaceLabels labels = Labels(request);
  if (!Unchecked(request) && !Unchanged(request)) {
    // Only a refusal is answered here: what warn and audit mode find, /validate reports.
    RuleVerdict verdict = judge().Rules(FactsOf(request), labels);
    if (verdict.Denies()) {
      return review::Denied(verdict.DenialReason(), verdict.DenialMessage(),
                            review::NotesFor(verdict.findings));
    }
  }
  if (!request.IsPod() || request.operation != "CREATE" || !request.subResource.empty()) {
    return review::Allowed("not-mutated");
  }
  if (!policy::MutatesIn(settings_.modes, request.ns, labels)) {
    return review::Allowed("mutation-off");
  }
  const policy::PodSpecView* spec = policy::OwnPodSpec(request.object);
  if (!spec) return review::Allowed("no-pod-spec");
  policy::MutationPlan plan = policy::PlanMutation(*spec, settings_);
  if (ledger_ && !ledger_->config().defaultFlavors.empty() &&
      !quota::PodCharge(*spec, settings_, ledger_->config()).empty()) {
    plan.addNodeSelector = DefaultFlavorPin(*spec, request.ns, ledger_->config());
  }
  if (plan.Empty()) return review::Allowed("unchanged");
  return review::Patched("patched", review::BuildPatch(*spec, plan));
}

}  // namespace gpugate::admission
