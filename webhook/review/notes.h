// Findings of rules in warn and audit mode, turned into what a response may carry: warnings and
// audit annotations within the API's limits, and the per-rule tally for /metrics.
//
// The API's limits (k8s.io/api admission/v1 AdmissionResponse and kube-apiserver's warning
// recorder, k8s.io/apiserver/pkg/endpoints/filters/warning.go):
//   - "Limit warnings to 120 characters if possible. Warnings over 256 characters and large
//     numbers of warnings may be truncated": once a request's warnings, from every admission
//     plugin together, pass 4096 characters (runes), the API server cuts each to 256 and drops
//     the ones after. A warning with a control character or invalid UTF-8 is dropped.
//   - An audit annotation's key becomes "<webhook name>/<key>" and must then be a qualified name,
//     or the API server drops it: the key is a name part (at most 63 characters of [A-Za-z0-9._-],
//     alphanumeric at both ends).
// gpugate never cuts a message. Each warn-mode finding becomes one warning: its whole message
// when that is at most kWarningMaxRunes, else its short form (ShortWarning: the container or
// field, the fix, the rule). Warnings go out in order, up to kMaxWarnings of them and
// kWarningsMaxRunes together (half the API server's total, leaving the rest to other plugins);
// one last warning counts those left out and says where they are. The whole text of every
// warn-mode finding not sent whole is in the audit annotation kWarningsAnnotationKey, and every
// finding, whole, is in the decision's `findings`, which the review's log line carries.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "policy/modes.h"
#include "review/decision.h"

namespace gpugate::review {

inline constexpr size_t kWarningMaxRunes = 256;
inline constexpr size_t kWarningsMaxRunes = 2048;
inline constexpr size_t kMaxWarnings = 10;
// An audit annotation's value (a rule's messages, joined): whole messages up to this size. The
// API does not limit it, but every audit event carries it.
inline constexpr size_t kAuditValueMaxBytes = 4096;
// The audit annotation that holds warn-mode findings not sent whole ("validate.gpugate.io/warnings"
// in the audit event); audit-mode findings are under their rule's name.
inline constexpr std::string_view kWarningsAnnotationKey = "warnings";

// One thing a rule found, and the rule's mode where the object is.
struct RuleFinding {
  std::string rule;  // a rule name, "object-shape" or "quota"
  std::string message;
  policy::Mode mode = policy::Mode::kDeny;
  // For the short form of a `message` too long for a warning: the container or field it names
  // (policy::Violation::subject), and what to do about it ("": the rule's, policy::FixFor).
  std::string subject;
  std::string fix;
};

// Warn-mode findings as warnings (in order, duplicates once, see above), audit-mode findings as
// one audit annotation per rule (its messages joined by "; "), warn-mode findings not sent whole
// under kWarningsAnnotationKey, every finding in the tally and, whole, in `findings`. Deny-mode
// findings add no warning or annotation: their messages are the denial's.
Notes NotesFor(std::span<const RuleFinding> findings);

// A warn-mode finding as NotesFor sends it: `text` whole when it fits a warning, else its short
// form.
struct WarningText {
  std::string text;
  std::string rule;
  std::string subject;
  std::string fix;
  bool quota = false;  // a quota finding: `gpugate audit` lists it, `gpugate check` does not
};

// The short form of a finding, within kWarningMaxRunes: "<subject>: <fix> (gpugate rule <rule>;
// whole text in gpugate's log and audit annotations)"; then without where the whole text is;
// then with the quoted names in `subject` (container names, values) shortened around "…" so the
// field path stays whole; "" when even that does not fit.
std::string ShortWarning(std::string_view rule, std::string_view subject, std::string_view fix);

// The warnings for `findings` and which of them were not sent whole (by index). Control
// characters and invalid UTF-8 become U+FFFD; duplicates go once.
struct Warnings {
  std::vector<std::string> sent;
  std::vector<size_t> notWhole;  // indexes into the input: shortened or left out
};
Warnings WarningsWithinLimits(const std::vector<WarningText>& findings);

// Whether `key` is valid as an audit annotation key once the API server prefixes it.
bool IsAuditAnnotationKey(std::string_view key);

}  // namespace gpugate::review
