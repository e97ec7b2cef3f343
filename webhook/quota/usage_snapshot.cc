#include "quota/usage_snapshot.h"

#include <set>

namespace gpugate::quota {
namespace {

Amounts Find(const std::map<std::string, Amounts, std::less<>>& map, std::string_view ns) {
  auto it = map.find(ns);
  return it == map.end() ? Amounts{} : it->second;
}

}  // namespace

UsageSnapshot::UsageSnapshot(QuotaConfig config)
    : config_(std::move(config)), limits_(config_.limits) {}

void UsageSnapshot::AddLimits(const std::string& ns, const Amounts& limits) {
  Amounts& known = limits_[ns];
  known = MinLimits(known, limits);
}

void UsageSnapshot::SetUsed(const std::string& ns, Amounts used) { used_[ns] = std::move(used); }

Amounts UsageSnapshot::Limits(std::string_view ns) const { return Find(limits_, ns); }

Amounts UsageSnapshot::Used(std::string_view ns) const { return Find(used_, ns); }

std::vector<std::string> UsageSnapshot::Namespaces() const {
  std::set<std::string> names;
  for (const auto& [ns, limits] : limits_) names.insert(ns);
  for (const auto& [ns, used] : used_) names.insert(ns);
  return {names.begin(), names.end()};
}

Result<ReserveResult> UsageSnapshot::Reserve(const ReserveRequest&) {
  return Fail("a usage snapshot charges nothing");
}

Result<bool> UsageSnapshot::Release(const PodRef&, Deadline) {
  return Fail("a usage snapshot releases nothing");
}

Result<bool> UsageSnapshot::ReleaseAt(const PodRef&, WallClock::time_point, Deadline) {
  return Fail("a usage snapshot releases nothing");
}

std::vector<NamespaceUsage> UsageSnapshot::Usage(std::string_view onlyNs) const {
  std::vector<NamespaceUsage> out;
  for (const std::string& ns : Namespaces()) {
    if (!onlyNs.empty() && ns != onlyNs) continue;
    NamespaceUsage usage{ns, {}};
    for (const auto& [resource, hard] : Limits(ns)) usage.resources[resource].hard = hard;
    for (const auto& [resource, used] : Used(ns)) usage.resources[resource].used = used;
    out.push_back(std::move(usage));
  }
  return out;
}

}  // namespace gpugate::quota
