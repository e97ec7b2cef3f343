// Quota as someone else recorded it: per namespace, the limits that apply and what is charged,
// read once (by `gpugate audit`, from the cluster's ResourceQuotas and GPUQuota records) rather
// than kept by a ledger. A read-only quota::Accounting, so the admission code that asks a ledger
// about limits (admission::UnpinnedFinding) asks a snapshot the same way and words the same
// findings.
//
// Not thread-safe while it is filled; read-only afterwards.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "quota/accounting.h"

namespace gpugate::quota {

class UsageSnapshot : public Accounting {
 public:
  // `config.limits` are the configured limits; more are added with AddLimits.
  explicit UsageSnapshot(QuotaConfig config);

  // More limits on `ns` (one ResourceQuota's): for each resource the smaller of these and those
  // already known applies, as in cluster mode.
  void AddLimits(const std::string& ns, const Amounts& limits);
  // What is charged in `ns` (a GPUQuota record's charges, summed); replaces what was set.
  void SetUsed(const std::string& ns, Amounts used);

  // The limits that apply in `ns`, and what it uses.
  Amounts Limits(std::string_view ns) const;
  Amounts Used(std::string_view ns) const;

  // Every namespace with a limit or a charge, sorted.
  std::vector<std::string> Namespaces() const;

  // Accounting: a snapshot charges nothing and releases nothing (an error says so).
  using Accounting::Release;
  using Accounting::Reserve;
  Result<ReserveResult> Reserve(const ReserveRequest& request) override;
  Result<bool> Release(const PodRef& pod, Deadline deadline) override;
  Result<bool> ReleaseAt(const PodRef& pod, WallClock::time_point releaseAt,
                         Deadline deadline) override;
  std::vector<NamespaceUsage> Usage(std::string_view onlyNs = {}) const override;
  const QuotaConfig& config() const override { return config_; }

 private:
  QuotaConfig config_;
  std::map<std::string, Amounts, std::less<>> limits_;  // configured, then each AddLimits
  std::map<std::string, Amounts, std::less<>> used_;
};

}  // namespace gpugate::quota
