// What `gpugate audit` found in a cluster, and the two ways it is written: a table for people,
// JSON for programs. Also the exit status, decided from what was found and what could not be
// read.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "policy/modes.h"
#include "quota/limit_check.h"

namespace gpugate::cli {

// One rule's finding about one object, in the webhook's words (one warning's, or one part of a
// denial's message), and the rule's mode in the object's namespace.
struct AuditFinding {
  std::string ns;
  std::string kind;  // "Pod", "Deployment", a custom resource's kind
  std::string name;
  std::string rule;  // a rule name, "object-shape" or "quota"
  std::string message;
  policy::Mode mode = policy::Mode::kDeny;
};

// A namespace whose recorded GPU use is above its limits.
struct OverLimit {
  std::string ns;
  policy::Mode mode = policy::Mode::kDeny;  // the quota rule's, in the namespace
  quota::Excess excess;                     // the resources over their limit, and the limits
  std::string message;                      // quota::OverLimitMessage
};

// A collection that could not be listed: the audit is incomplete.
struct AuditError {
  std::string what;  // "deployments.apps", "namespaces"
  std::string message;
};

struct AuditCounts {
  // Objects listed, per kind, in the order listed; a kind that could not be listed is absent.
  std::vector<std::pair<std::string, size_t>> scanned;
  size_t exempt = 0;    // in an exempt namespace: the webhook admits them unchecked
  size_t finished = 0;  // Pods that Succeeded or Failed: they hold nothing and run no more
  size_t deleting = 0;  // objects with a deletionTimestamp: going away
  size_t withFindings = 0;
};

struct AuditReport {
  std::vector<AuditFinding> findings;  // by namespace, kind (in listing order), name
  std::vector<OverLimit> overLimit;    // by namespace
  std::vector<AuditError> errors;
  // What the reader should know that is not a finding: kinds this cluster does not serve,
  // labels gpugate reads as deny, GPUQuota records it cannot read.
  std::vector<std::string> notes;
  AuditCounts counts;
};

// 1 when something would be denied (a finding in deny mode, or a namespace over its limits),
// else 2 when some collection could not be listed (the audit cannot say that nothing would),
// else 0 (cli/exit_status.h).
int AuditExitStatus(const AuditReport& report);

// The findings' table, the table of namespaces over their limits, then the summary, on `out`;
// each error ("error: ...") and note ("note: ...") on `err`, between the tables and the summary.
void WriteAuditTable(const AuditReport& report, std::ostream& out, std::ostream& err);

// {"findings": [...], "overLimit": [...], "errors": [...], "notes": [...], "summary": {...}},
// indented, with a final newline.
std::string RenderAuditJson(const AuditReport& report);

// "scanned 12 objects (5 Pod, 7 Deployment): 3 findings in 2 objects (1 deny, 1 warn, 1 audit);
// 1 namespace over its limits; skipped 1 in exempt namespaces, 0 finished pods, 0 being deleted",
// naming the kinds of which something was found.
std::string AuditSummary(const AuditReport& report);

}  // namespace gpugate::cli
