// GPU-hour usage (either ledger's, through usage::UsageView) in the Prometheus text format, for
// /metrics:
//   gpugate_usage_gpu_seconds_total{namespace,resource}: GPU-seconds accrued, finished pods and
//     running ones up to now (UsageView::Accrued: it only grows, and starts again with the
//     process, which increase() and rate() allow for);
//   gpugate_budget_gpu_hours{namespace,resource,period}: each budget limit that applies to a
//     namespace with usage ("resource" is the limit's name: "nvidia.com/gpu@a100" for a model);
//   gpugate_budget_spent_gpu_hours{namespace,resource,period}: what the current period has spent
//     of it, as the admission check counts it.
#pragma once

#include <string>

#include "usage/usage_view.h"

namespace gpugate::usage {

std::string UsagePrometheus(const UsageView& keeper, sys_seconds now);

}  // namespace gpugate::usage
