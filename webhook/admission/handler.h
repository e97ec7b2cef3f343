// The admission decisions: Handle(request) -> Decision for /validate and /mutate. Pure given
// the settings; safe to call from many threads at once (it holds only const state).
#pragma once

#include "policy/settings.h"
#include "review/admission_review.h"
#include "review/decision.h"

namespace gpugate::admission {

class Handler {
 public:
  explicit Handler(policy::Settings settings) : settings_(std::move(settings)) {}

  // Validates every pod spec in the object (Pods and pod templates of any kind).
  review::Decision Validate(const review::AdmissionRequest& request) const;

  // Denies what Validate denies (so users see the reason first), then patches GPU Pods on CREATE.
  review::Decision Mutate(const review::AdmissionRequest& request) const;

  const policy::Settings& settings() const { return settings_; }

 private:
  // A decision that needs no rule: exempt namespace, nothing to check. nullopt: run the rules.
  std::optional<review::Decision> Skip(const review::AdmissionRequest& request) const;

  policy::Settings settings_;
};

}  // namespace gpugate::admission
