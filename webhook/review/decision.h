// An admission decision as a value, made by named constructors. EncodeResponse turns it into the
// response review; the transport reads `reason` for metrics and logs, and `violated` for the
// per-rule counts.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gpugate::review {

// One entry of response.auditAnnotations. The API server records it in the audit event as
// "<webhook name>/<key>", so `key` is the name part of a qualified name (review/notes.h).
struct AuditAnnotation {
  std::string key;
  std::string value;

  bool operator==(const AuditAnnotation&) const = default;
};

// A rule that found something wrong with the reviewed object, and its mode in the object's
// namespace: /metrics counts it (gpugate_policy_violations_total{rule,mode}) whatever the answer.
struct ViolatedRule {
  std::string rule;  // a rule name, "object-shape" or "quota"
  std::string mode;  // "deny", "warn" or "audit"

  bool operator==(const ViolatedRule&) const = default;
};

// One finding, whole, for the review's log line: every finding in every mode, however long.
struct LoggedFinding {
  std::string rule;
  std::string mode;  // "deny", "warn" or "audit"
  std::string message;

  bool operator==(const LoggedFinding&) const = default;
};

// What findings in warn and audit modes add to an answer, and the tally of every finding. Built
// by review::NotesFor (review/notes.h), which keeps them within the API's limits.
struct Notes {
  std::vector<std::string> warnings;              // response.warnings, in order
  std::vector<AuditAnnotation> auditAnnotations;  // response.auditAnnotations, sorted by key
  std::vector<ViolatedRule> violated;             // sorted; each rule and mode once
  std::vector<LoggedFinding> findings;            // every finding, whole, in order
};

struct Decision {
  bool allowed = true;
  int32_t code = 200;   // status.code when denied
  std::string reason;   // short machine word for metrics and logs: a rule name, "exempt", ...
  std::string message;  // status.message when denied
  std::string patch;    // a JSON Patch document (JSON text); empty: no patch
  std::vector<std::string> warnings;
  std::vector<AuditAnnotation> auditAnnotations;
  std::vector<ViolatedRule> violated;
  std::vector<LoggedFinding> findings;  // for the log line only; never sent
};

inline Decision Allowed(std::string reason) { return Decision{.reason = std::move(reason)}; }

// Admitted although rules in warn or audit mode found something: the notes say what.
inline Decision Allowed(std::string reason, Notes notes) {
  return Decision{.reason = std::move(reason),
                  .warnings = std::move(notes.warnings),
                  .auditAnnotations = std::move(notes.auditAnnotations),
                  .violated = std::move(notes.violated),
                  .findings = std::move(notes.findings)};
}

inline Decision Denied(std::string reason, std::string message) {
  return Decision{
      .allowed = false, .code = 403, .reason = std::move(reason), .message = std::move(message)};
}

// Refused by rules in deny mode (`message`), with what rules in warn and audit mode found too.
inline Decision Denied(std::string reason, std::string message, Notes notes) {
  return Decision{.allowed = false,
                  .code = 403,
                  .reason = std::move(reason),
                  .message = std::move(message),
                  .warnings = std::move(notes.warnings),
                  .auditAnnotations = std::move(notes.auditAnnotations),
                  .violated = std::move(notes.violated),
                  .findings = std::move(notes.findings)};
}

// Refused because gpugate could not decide (the ledger unavailable, no time left): `code` is a
// 5xx, so the API server reports an error rather than a policy refusal.
inline Decision Errored(int32_t code, std::string reason, std::string message) {
  return Decision{
      .allowed = false, .code = code, .reason = std::move(reason), .message = std::move(message)};
}

inline Decision Patched(std::string reason, std::string patch) {
  return Decision{.reason = std::move(reason), .patch = std::move(patch)};
}

}  // namespace gpugate::review
