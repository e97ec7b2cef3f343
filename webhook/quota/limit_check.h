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

// What a namespace holds past its limits, in the same words, for a namespace that went over
// them (charged while the quota rule was in warn or audit mode, or a limit lowered since):
//   "over quota: team-a, used: nvidia.com/gpu=6, limited: nvidia.com/gpu=4"
// naming only the resources whose use is above their entry in `hard`, sorted; "" when none is.
std::string OverLimitMessage(std::string_view ns, const Amounts& hard, const Amounts& used);

}  // namespace gpugate::quota
