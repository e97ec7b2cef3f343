// Resource amounts as the quota ledger counts them: exact integers in thousandths of a unit
// ("milli-units"), keyed by resource name. Plain GPU resources are whole numbers (validation
// refuses anything else), so milli-units only matter for weighted figures such as
// gpu-equivalents = 0.01 per tencent.com/vcuda-core, which must stay exact when summed.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "common/result.h"

namespace gpugate::quota {

// resource name -> milli-units. std::map keeps names sorted, so every rendering is stable.
using Amounts = std::map<std::string, int64_t, std::less<>>;

inline constexpr int64_t kMilli = 1000;

// "2", "0.5", "1.25": milli-units rendered as a plain decimal without trailing zeros.
std::string FormatMilli(int64_t milli);

// Parses a non-negative decimal with at most three fractional digits ("4", "0.01", "2.5") into
// milli-units; used for limits and weights in the config file.
Result<int64_t> ParseMilli(std::string_view text);

// "nvidia.com/gpu=1,tencent.com/vcuda-core=50" (sorted by name, zero entries skipped).
std::string FormatAmounts(const Amounts& amounts);

// Limits from two sources (the config and a ResourceQuota): per resource, the smaller of `a` and
// `b` where both set one, else whichever does.
Amounts MinLimits(const Amounts& a, const Amounts& b);

}  // namespace gpugate::quota
