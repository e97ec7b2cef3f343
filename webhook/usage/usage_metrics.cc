#include "usage/usage_metrics.h"

#include "common/strings.h"

namespace gpugate::usage {
namespace {

// Milli-units as a decimal: "4444.2".
std::string Milli(int64_t milli) { return quota::FormatMilli(milli); }

}  // namespace

std::string UsagePrometheus(const UsageView& keeper, sys_seconds now) {
  std::string out =
      "# HELP gpugate_usage_gpu_seconds_total GPU-seconds accrued by a namespace's pods, finished "
      "and running, per resource or weighted figure.\n"
      "# TYPE gpugate_usage_gpu_seconds_total counter\n";
  for (const auto& [key, milli] : keeper.Accrued(now)) {
    out += "gpugate_usage_gpu_seconds_total{namespace=\"" + PrometheusLabelValue(key.first) +
           "\",resource=\"" + PrometheusLabelValue(key.second) + "\"} " + Milli(milli) + "\n";
  }
  std::string limits =
      "# HELP gpugate_budget_gpu_hours A namespace's GPU-hour budget per period.\n"
      "# TYPE gpugate_budget_gpu_hours gauge\n";
  std::string spent =
      "# HELP gpugate_budget_spent_gpu_hours GPU-hours a namespace has spent of its budget in "
      "the current period.\n"
      "# TYPE gpugate_budget_spent_gpu_hours gauge\n";
  for (const BudgetStanding& b : keeper.Standings(now)) {
    const std::string labels = "{namespace=\"" + PrometheusLabelValue(b.ns) + "\",resource=\"" +
                               PrometheusLabelValue(b.limit) + "\",period=\"" +
                               PrometheusLabelValue(b.period) + "\"} ";
    limits += "gpugate_budget_gpu_hours" + labels + Milli(b.limitMilliGpuHours) + "\n";
    spent +=
        "gpugate_budget_spent_gpu_hours" + labels + FormatGpuHours(b.spentMilliGpuSeconds) + "\n";
  }
  return out + limits + spent;
}

}  // namespace gpugate::usage
