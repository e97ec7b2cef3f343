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
// gpugate never cuts a message: it sends whole messages, each at most kWarningMaxRunes, up to
// kMaxWarnings of them and kWarningsMaxRunes together (half the API server's total, leaving the
// rest to other plugins), and says how many more there were in one last warning.
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

// One thing a rule found, and the rule's mode where the object is.
struct RuleFinding {
  std::string rule;  // a rule name, "object-shape" or "quota"
  std::string message;
  policy::Mode mode = policy::Mode::kDeny;
};

// Warn-mode findings as warnings (in order, duplicates once), audit-mode findings as one audit
// annotation per rule (its messages joined by "; "), and every finding in the tally. Deny-mode
// findings only count in the tally: their messages are the denial's.
Notes NotesFor(std::span<const RuleFinding> findings);

// `messages` as warnings the API server passes on whole (see above): control characters and
// invalid UTF-8 replaced by U+FFFD, duplicates once, then whole messages in order while they
// fit; what does not fit is counted in a last warning, "and N more ...".
std::vector<std::string> WarningsWithinLimits(const std::vector<std::string>& messages);

// Whether `key` is valid as an audit annotation key once the API server prefixes it.
bool IsAuditAnnotationKey(std::string_view key);

}  // namespace gpugate::review
