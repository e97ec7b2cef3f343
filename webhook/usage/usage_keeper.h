// The local ledger's usage: the usage book of finished pods plus the pods running now, kept as
// the ledger reports starts and ends (quota/usage_recorder.h), and read by budget checks,
// reports and metrics. The book follows usage_book.h's calling sequence: pruned and accrued
// when a charge ends, with the end time the journal holds, so a replay rebuilds it exactly.
//
// Thread-safety: every method may be called from any thread; one mutex, taken after the
// ledger's (the ledger calls the recorder methods under its own lock), never before it.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "quota/usage_recorder.h"
#include "usage/budget.h"
#include "usage/report.h"
#include "usage/usage_book.h"

namespace gpugate::usage {

class UsageKeeper final : public quota::UsageRecorder {
 public:
  // The book in `config`'s time zone, with its history and size bound. An unknown zone is an
  // error (the config's parser has checked it already). `onError` hears of an accrual the book
  // refused (its size bound): the charge ends all the same, its usage unrecorded.
  static Result<std::unique_ptr<UsageKeeper>> Create(
      const UsageConfig& config, std::function<void(const std::string&)> onError = {});

  void Started(const quota::Charge& charge) override;
  void Ended(const quota::Charge& charge, WallClock::time_point endedAt) override;
  std::string Snapshot() const override;
  Status Restore(std::string_view snapshot) override;

  // Judges a new pod in `ns` charged `charge` against the namespace's budget at `now`
  // (budget.h's CheckBudget over the book and the running pods); kWithin when it has none.
  BudgetCheck Check(std::string_view ns, const quota::Amounts& charge, sys_seconds now) const;

  // The report of `query` at `now`, running pods counted up to now.
  UsageReport Report(const ReportQuery& query, sys_seconds now) const;

  // Milli-GPU-seconds per (namespace, resource) accrued since this keeper was created, replayed
  // ends included, running pods up to `now`: it only grows (a running pod's share is counted to
  // its release time at most, where its end will put it).
  std::map<std::pair<std::string, std::string>, int64_t> Accrued(sys_seconds now) const;

  // Each configured budget as it stands at `now`, for every namespace with usage or a running
  // pod that the budget's pattern matches.
  struct BudgetStanding {
    std::string ns, limit, period;  // limit: "nvidia.com/gpu"; period: "month", "rolling:10m"
    int64_t limitMilliGpuHours = 0;
    int64_t spentMilliGpuSeconds = 0;
  };
  std::vector<BudgetStanding> Standings(sys_seconds now) const;

  const TimeZone& zone() const { return zone_; }

 private:
  struct Running {
    quota::Amounts amounts;
    sys_seconds started;
    std::optional<sys_seconds> releaseAt;  // counted no further
  };
  using PodKey = std::tuple<std::string, std::string, std::string>;  // ns, name, uid

  UsageKeeper(UsageConfig config, TimeZone zone, std::function<void(const std::string&)> onError);
  // The running pods' accruals over [started, now) (to their release time at most). Needs mu_.
  std::vector<Accrual> RunningAccruals(sys_seconds now) const;

  const UsageConfig config_;
  const TimeZone zone_;
  const std::function<void(const std::string&)> onError_;
  mutable std::mutex mu_;
  UsageBook book_;                                                   // guarded by mu_
  std::map<PodKey, Running> running_;                                // guarded by mu_
  std::map<std::pair<std::string, std::string>, int64_t> finished_;  // guarded by mu_
};

}  // namespace gpugate::usage
