// What `gpugate check` found, and the two ways it is written: lines for people and CI logs,
// JSON for programs. Also the exit status, by the rule of cli/exit_status.h.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "manifest/manifest_reader.h"
#include "policy/modes.h"

namespace gpugate::cli {

// What the webhook would answer about one object, with the webhook's words: its denial (every
// deny-mode violation, the reason the first one's rule), one of its warnings, or one of its audit
// annotations (a rule's messages).
struct Finding {
  manifest::Location at;
  std::string kind;
  std::string ns;  // metadata.namespace; "" when the manifest leaves it to kubectl
  std::string name;
  // The rule: for a denial, the webhook's reason, the first rule violated; "reason" in JSON.
  std::string rule;
  std::string message;
  // How much it weighs: the mode of the rules that found it where the object is (policy/modes.h);
  // "severity" in JSON. Only deny fails the check (cli::FailsRun).
  policy::Mode mode = policy::Mode::kDeny;
};

// Objects by what the webhook would do with them, each counted once under the weightiest of its
// findings; they add up to `objects`.
struct CheckCounts {
  size_t files = 0;  // files read, or tried
  size_t objects = 0;
  size_t denied = 0;
  size_t warned = 0;          // admitted with warnings
  size_t audited = 0;         // admitted with audit annotations only
  size_t allowed = 0;         // pod specs that pass every rule
  size_t exempt = 0;          // in an exempt namespace: admitted unchecked
  size_t withoutPodSpec = 0;  // nothing for the rules to check
};

struct CheckReport {
  std::vector<Finding> findings;
  std::vector<manifest::ManifestError> errors;  // unreadable input
  CheckCounts counts;
};

// 2 when some input could not be read, else 1 when a finding fails the check, else 0
// (cli/exit_status.h).
int ExitStatus(const CheckReport& report);

// One line per finding, "FILE:LINE: KIND/NAME: message" for a denial and "FILE:LINE: KIND/NAME:
// warning: message" or "...: audit: message" for the others, then the summary, on `out`; one line
// per error, "FILE:LINE: error: message", on `err`.
void WriteText(const CheckReport& report, std::ostream& out, std::ostream& err);

// {"findings": [...], "errors": [...], "summary": {...}}, indented, with a final newline.
std::string RenderJson(const CheckReport& report);

}  // namespace gpugate::cli
