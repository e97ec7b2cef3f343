#include "quota/limit_check.h"

namespace gpugate::quota {
namespace {

int64_t Lookup(const Amounts& amounts, std::string_view resource) {
  auto it = amounts.find(resource);
  return it == amounts.end() ? 0 : it->second;
}

// Kubernetes' rendering of a resource list in quota messages: sorted, "name=value", comma-joined,
// zero values included (a used figure of 0 still says something).
std::string JoinAmounts(const Amounts& amounts) {
  std::string out;
  for (const auto& [name, milli] : amounts) {
    if (!out.empty()) out += ',';
    out += name + "=" + FormatMilli(milli);
  }
  return out;
}

}  // namespace

std::string ExceededMessage(std::string_view ns, const Amounts& hard, const Amounts& used,
                            const Amounts& requested) {
  Amounts over, current, limited;
  for (const auto& [resource, want] : requested) {
    auto limit = hard.find(resource);
    if (want <= 0 || limit == hard.end()) continue;
    int64_t now = Lookup(used, resource);
    int64_t after = 0;
    if (!__builtin_add_overflow(now, want, &after) && after <= limit->second) continue;
    over[resource] = want;
    current[resource] = now;
    limited[resource] = limit->second;
  }
  if (over.empty()) return "";
  return "exceeded quota: " + std::string(ns) + ", requested: " + JoinAmounts(over) +
         ", used: " + JoinAmounts(current) + ", limited: " + JoinAmounts(limited);
}

Excess OverLimits(const Amounts& hard, const Amounts& used) {
  Excess excess;
  for (const auto& [resource, now] : used) {
    auto limit = hard.find(resource);
    if (limit == hard.end() || now <= limit->second) continue;
    excess.used[resource] = now;
    excess.limited[resource] = limit->second;
  }
  return excess;
}

std::string OverLimitMessage(std::string_view ns, const Excess& excess) {
  if (excess.empty()) return "";
  return "over quota: " + std::string(ns) + ", used: " + JoinAmounts(excess.used) +
         ", limited: " + JoinAmounts(excess.limited);
}

}  // namespace gpugate::quota
