// The admission decisions: request -> Decision for /validate and /mutate. Thread-safe: the
// handler holds const settings and a ledger that does its own locking.
#pragma once

#include <optional>

#include "policy/settings.h"
#include "quota/accounting.h"
#include "review/admission_review.h"
#include "review/decision.h"

namespace gpugate::admission {

class Handler {
 public:
  // `ledger` may be null (no quota accounting); it must outlive the handler.
  Handler(policy::Settings settings, quota::Accounting* ledger);

  // Validates every pod spec in the object (Pods and pod templates of any kind). For Pods it
  // also keeps the quota ledger: charges on CREATE when everything fits (refusing otherwise),
  // releases on DELETE and when pods/status reports Succeeded or Failed. Dry runs never change
  // the ledger.
  review::Decision Validate(const review::AdmissionRequest& request) const;

  // Denies what validation denies (so users see the reason first), then patches GPU Pods on
  // CREATE. Never touches the ledger: mutation may be reinvoked, and a later step may refuse.
  review::Decision Mutate(const review::AdmissionRequest& request) const;

  // Whether Validate may wait on the ledger (a Pod's charge or release: a journal fsync, the
  // API server), so the transport answers it on a thread that may block.
  bool MayBlock(const review::AdmissionRequest& request) const;

  const policy::Settings& settings() const { return settings_; }
  quota::Accounting* ledger() const { return ledger_; }

 private:
  // A decision reached without rules (exempt namespace, nothing to check), or a rule denial.
  // nullopt: the object passed every rule.
  std::optional<review::Decision> Check(const review::AdmissionRequest& request) const;
  review::Decision Charge(const review::AdmissionRequest& request) const;
  review::Decision Release(const review::AdmissionRequest& request) const;

  policy::Settings settings_;
  quota::Accounting* ledger_;
};

}  // namespace gpugate::admission
