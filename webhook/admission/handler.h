// The admission decisions: request -> Decision for /validate and /mutate. The handler states a
// request's facts to the Judge (admission/judge.h), which `gpugate check` and `gpugate audit` ask
// too, and keeps what only a request has: its operation and subresource, an UPDATE that changes
// nothing, the ledger's charges and releases, the answer's deadline. Thread-safe: the handler
// holds const settings, a ledger that does its own locking and a namespace label source that
// does too.
#pragma once

#include <optional>
#include <vector>

#include "admission/judge.h"
#include "policy/modes.h"
#include "policy/settings.h"
#include "quota/accounting.h"
#include "review/admission_review.h"
#include "review/decision.h"
#include "usage/usage_view.h"

namespace gpugate::admission {

class Handler {
 public:
  // `ledger` may be null (no quota accounting); `namespaces` may be null (no namespace labels:
  // local mode); `usage` may be null (no GPU-hour budgets). All must
  // outlive the handler.
  Handler(policy::Settings settings, quota::Accounting* ledger,
          const policy::NamespaceLabelSource* namespaces = nullptr,
          const usage::UsageView* usage = nullptr);

  // Validates every pod spec in the object (Pods and pod templates of any kind): findings in
  // deny mode refuse it, those in warn and audit mode come back as warnings and audit
  // annotations (policy/modes.h). For Pods it also keeps the quota ledger: charges on CREATE
  // when everything fits (refusing otherwise, or, with the quota rule in warn or audit mode,
  // charging anyway and saying so; a namespace whose GPU-hour budget is spent is refused first,
  // in the budget rule's mode), records when the pod started (the first pods/status update
  // carrying status.startTime: its usage runs from then), releases when pods/status reports
  // Succeeded or Failed and on
  // the DELETE that removes the pod; a graceful DELETE leaves the charge counting until the pod
  // is gone or its grace period has passed (quota/release_edge.h). Dry runs never change the
  // ledger.
  review::Decision Validate(const review::AdmissionRequest& request) const;

  // Denies what validation denies (so users see the reason first, with what warn and audit mode
  // found beside it), then patches GPU Pods on CREATE, unless mutation is off in the namespace.
  // Never touches the ledger: mutation may be reinvoked, and a later step may refuse.
  review::Decision Mutate(const review::AdmissionRequest& request) const;

  // Whether Validate may wait on the ledger (a Pod's charge or release: a journal fsync, the
  // API server), so the transport answers it on a thread that may block. False guarantees that
  // Validate does not call a ledger that may wait (quota::Accounting::MayWait: a memory-only
  // ledger never does). True for a release that is not a dry run, and for the
  // CREATE of a Pod that asks for a managed resource, even one the rules go on to refuse (finding
  // that out is the rules' whole work: it is not done twice); for a pods/status update that
  // carries status.startTime, exactly when the ledger awaits that pod's start
  // (quota::Accounting::AwaitsStart), so it will write one.
  bool MayBlock(const review::AdmissionRequest& request) const;

  // Whether every source of the decisions is ready: the ledger, and the namespace labels.
  bool Ready() const;

  const policy::Settings& settings() const { return settings_; }
  quota::Accounting* ledger() const { return ledger_; }
  const usage::UsageView* usage() const { return usage_; }

 private:
  // The judgement, over the request's facts; see judge.h.
  Judge judge() const { return Judge(settings_, ledger_); }
  // A decision reached without the rules (exempt namespace, DELETE, a subresource, ...);
  // nullopt: the rules decide.
  std::optional<review::Decision> Unchecked(const review::AdmissionRequest& request) const;
  policy::NamespaceLabels Labels(const review::AdmissionRequest& request) const;
  // An UPDATE that changes no pod spec (AdmissionRequest::samePodSpecs) and nothing else the
  // rules read (policy::SameRuleInputs: the annotations a rule or the GPU-model pin reads):
  // admitted whatever its findings, with deny-mode ones reported as audit-mode ones.
  static bool Unchanged(const review::AdmissionRequest& request);
  review::Decision Charge(const review::AdmissionRequest& request, Verdict verdict) const;
  // A GPU pod's CREATE against its namespace's GPU-hour budget (usage/budget.h): a spent budget
  // adds a finding in the budget rule's mode, and refuses in deny mode; a nearly spent one adds
  // a warning (an audit annotation in audit mode). Running pods are never touched.
  std::optional<review::Decision> BudgetRefusal(const review::AdmissionRequest& request,
                                                const quota::Amounts& charge,
                                                std::vector<review::RuleFinding>& findings) const;
  // A Pod's DELETE: a release now, or the time its charge stops counting.
  review::Decision Delete(const review::AdmissionRequest& request) const;
  review::Decision Release(const review::AdmissionRequest& request) const;
  // A pods/status update carrying status.startTime: records the start on the pod's charge,
  // once (quota::Accounting::RecordStart). nullopt when nothing was recorded: the update is
  // answered as any other status update.
  std::optional<review::Decision> Start(const review::AdmissionRequest& request) const;

  policy::Settings settings_;
  quota::Accounting* ledger_;
  const policy::NamespaceLabelSource* namespaces_;
  const usage::UsageView* usage_;
};

}  // namespace gpugate::admission
