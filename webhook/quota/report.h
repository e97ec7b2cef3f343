// Renderings of the ledger's usage for people and tools: the JSON of GET /quota (and its parser,
// for `gpugate quota`), a kubectl-style table, and Prometheus gauges for /metrics.
//
// Every rendering is a pure function of its input and iterates in sorted order, so equal usage
// always renders to equal bytes. Amounts are milli-units (quota/amounts.h) and render as plain
// decimals without trailing zeros: 2, 0.5, 1.25.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "quota/ledger.h"

namespace gpugate::quota {

// {"namespaces":[{"namespace":"team-a","resources":{"nvidia.com/gpu":{"used":2,"hard":4}},
//   "flavors":{"a100":{"nvidia.com/gpu":{"used":1,"hard":2}}}}]}
// Namespaces in the order given (the ledger sorts them), resources by name; "hard" is left out
// where no limit is set. Amounts are JSON numbers. Use and limits per GPU flavor
// ("nvidia.com/gpu@a100" in NamespaceUsage) are under "flavors", by flavor, so that summing
// "resources" never counts a pod twice; "flavors" is left out where there are none.
std::string UsageJson(const std::vector<NamespaceUsage>& usage);

// The inverse of UsageJson. Unknown keys are ignored so an older client reads a newer server's
// report; a missing or mistyped field, a negative amount or one with more than three fractional
// digits is an error naming its path (`namespaces[0].resources["nvidia.com/gpu"].used`).
Result<std::vector<NamespaceUsage>> ParseUsageJson(std::string_view text);

// A table in the manner of `kubectl describe resourcequota`: NAMESPACE, RESOURCE, USED, HARD,
// USE% and a 20-character bar (`-` where no limit is set), one row per namespace and resource,
// sorted, then a TOTAL row per resource: all use, the sum of the limits that are set, and USE%
// only when no unit is used outside a limit. Ends with a newline.
std::string UsageTable(const std::vector<NamespaceUsage>& usage);

// Prometheus text format: gauges gpugate_quota_used and gpugate_quota_hard (the latter only
// where a limit is set), labelled namespace and resource; per GPU flavor, the same in
// gpugate_quota_flavor_used and gpugate_quota_flavor_hard, also labelled flavor (separate
// families, so a sum over gpugate_quota_used counts each pod once). Ready to append to /metrics.
std::string UsagePrometheus(const std::vector<NamespaceUsage>& usage);

}  // namespace gpugate::quota
