// What budget checks, reports and metrics read of GPU-hour usage, whichever form keeps it: the
// local ledger's UsageKeeper (usage_keeper.h) or, in cluster mode, the usage books kept in the
// namespaces' GPUQuota objects.
//
// Thread-safety: every method may be called from any thread.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/time_zone.h"
#include "quota/amounts.h"
#include "usage/budget.h"
#include "usage/report.h"
#include "usage/span.h"

namespace gpugate::usage {

// A configured budget as it stands for one namespace: what /metrics reports.
struct BudgetStanding {
  std::string ns, limit, period;  // limit: "nvidia.com/gpu"; period: "month", "rolling:10m"
  int64_t limitMilliGpuHours = 0;
  int64_t spentMilliGpuSeconds = 0;
};

class UsageView {
 public:
  virtual ~UsageView() = default;

  // Judges a new pod in `ns` charged `charge` against the namespace's budget at `now`
  // (budget.h's CheckBudget over finished and running pods); kWithin when it has none.
  virtual BudgetCheck Check(std::string_view ns, const quota::Amounts& charge,
                            sys_seconds now) const = 0;

  // The report of `query` at `now`, running pods counted up to now.
  virtual UsageReport Report(const ReportQuery& query, sys_seconds now) const = 0;

  // Milli-GPU-seconds per (namespace, resource) for the usage counter: finished pods and running
  // ones up to `now`. It never goes down while the process runs.
  virtual std::map<std::pair<std::string, std::string>, int64_t> Accrued(sys_seconds now) const = 0;

  // Each budget as it stands at `now`, for every namespace with usage or a running pod that the
  // budget applies to.
  virtual std::vector<BudgetStanding> Standings(sys_seconds now) const = 0;

  // The time zone of the local days and calendar periods.
  virtual const TimeZone& zone() const = 0;
};

}  // namespace gpugate::usage
