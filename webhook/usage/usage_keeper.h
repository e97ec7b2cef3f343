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
#include "usage/usage_view.h"

namespace gpugate::usage {

class UsageKeeper final : public quota::UsageRecorder, public UsageView {
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

  // UsageView: from the book and the running pods this keeper was told of. Accrued counts
  // what was accrued since this keeper was created, replayed ends included (a running pod's share
  // is counted to its release time at most, where its end will put it).
  BudgetCheck Check(std::string_view ns, const quota::Amounts& charge,
                    sys_seconds now) const override;
  UsageReport Report(const ReportQuery& query, sys_seconds now) const override;
  std::map<std::pair<std::string, std::string>, int64_t> Accrued(sys_seconds now) const override;
  std::vector<BudgetStanding> Standings(sys_seconds now) const override;
  const TimeZone& zone() const override { return zone_; }

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
