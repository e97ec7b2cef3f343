// The quota check shared by every form of accounting (the local ledger and the cluster ledger),
// so both refuse the same pods with the same words.
#pragma once

#include <string>
#include <string_view>

#include "quota/amounts.h"

namespace gpugate::quota {

// Kubernetes' ResourceQuota denial for the resources of `requested` that would take `used` past
// `hard`, or "" when everything fits:
//   "exceeded quota: team-a, requested: nvidia.com/gpu=1, used: nvidia.com/gpu=4,
//    limited: nvidia.com/gpu=4"
// Only resources with a positive request and an entry in `hard` are checked; a sum that would
// overflow int64 does not fit. The three lists name only the offending resources, sorted.
std::string ExceededMessage(std::string_view ns, const Amounts& hard, const Amounts& used,
                            const Amounts& requested);

// The resources whose use is above their limit: charged while the quota rule was in warn or
// audit mode, or limited since.
struct Excess {
  Amounts used;     // those resources' use
  Amounts limited;  // and their limits

  bool empty() const { return used.empty(); }
};
Excess OverLimits(const Amounts& hard, const Amounts& used);

// The same in ExceededMessage's words, "" when nothing is over:
//   "over quota: team-a, used: nvidia.com/gpu=6, limited: nvidia.com/gpu=4"
std::string OverLimitMessage(std::string_view ns, const Excess& excess);

}  // namespace gpugate::quota
