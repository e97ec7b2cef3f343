// GPU-hour usage in cluster mode, read from the namespaces' GPUQuota records: each record's book
// (status.usage: its finished pods, accrued as their charges dropped, cluster/record_book.h) plus
// its running charges that have a start, counted up to the moment asked. What budget checks, GET
// /usage and the usage metrics read (usage/usage_view.h), in every replica alike: the records are
// shared through the API, so every replica judges a namespace's budget from the same figures
// (give or take the watch's lag).
//
// A book is decoded once per resourceVersion of its record, not per admission. A book that cannot
// be decoded (kept in another time zone than usage.timeZone, malformed) counts as empty, and is
// reported through `onError` once per resourceVersion; the cluster ledger leaves it as stored.
//
// Thread-safety: every method may be called from any thread; one mutex, never held while the
// source is asked (it takes its own lock).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cluster/gpu_quota_record.h"
#include "usage/budget.h"
#include "usage/usage_book.h"
#include "usage/usage_view.h"

namespace gpugate::cluster {

// Where ClusterUsage reads the records: the cluster ledger's watched copies (or its own latest
// writes), never the API itself.
class RecordSource {
 public:
  virtual ~RecordSource() = default;
  // What usage reads of the namespace's record, nullopt when there is none. The book
  // (RecordUsage::usage) is left out, null, when the record's version is `bookKnownAt`: the
  // reader holds that version's book already, and a book can be most of a megabyte.
  virtual std::optional<RecordUsage> RecordOf(std::string_view ns,
                                              std::string_view bookKnownAt) const = 0;
  // The same of every namespace's record.
  virtual std::vector<RecordUsage> AllRecords() const = 0;
  // True once the records have been listed: before, "none" may only mean "not seen yet".
  virtual bool RecordsSynced() const = 0;
};

class ClusterUsage final : public usage::UsageView {
 public:
  // The budget in force for a namespace (nullopt: none). The default reads usage.budgets.
  using BudgetLookup = std::function<std::optional<usage::Budget>(std::string_view ns)>;

  // `source` must outlive this. An unknown time zone is an error (the config's parser has
  // checked it already).
  static Result<std::unique_ptr<ClusterUsage>> Create(
      const RecordSource& source, const usage::UsageConfig& config,
      std::function<void(const std::string&)> onError = {});

  // Budgets from elsewhere than the config (GPUBudget objects, cluster/gpu_budget.h). Call
  // before serving: it is not synchronized with the readers.
  void SetBudgets(BudgetLookup budgets) { budgets_ = std::move(budgets); }

  usage::BudgetCheck Check(std::string_view ns, const quota::Amounts& charge,
                           usage::sys_seconds now) const override;
  usage::UsageReport Report(const usage::ReportQuery& query, usage::sys_seconds now) const override;
  // Counted from the first call after the records were listed, at 0 for every (namespace,
  // resource) then: what accrues afterwards, finished pods as their books grow and running pods
  // as they run. Books pruned of old days never take it down.
  std::map<std::pair<std::string, std::string>, int64_t> Accrued(
      usage::sys_seconds now) const override;
  std::vector<usage::BudgetStanding> Standings(usage::sys_seconds now) const override;
  const TimeZone& zone() const override { return zone_; }

 private:
  // A record's book as decoded at its resourceVersion.
  struct DecodedBook {
    std::string version;
    std::shared_ptr<const usage::UsageBook> book;
  };
  // What Accrued last saw of a (namespace, resource): milli-GPU-seconds per local day in the
  // book and of the running charges up to then.
  struct Observed {
    std::map<std::chrono::local_days, int64_t> days;
    int64_t running = 0;
  };
  using NsResource = std::pair<std::string, std::string>;

  ClusterUsage(const RecordSource& source, usage::UsageConfig config, TimeZone zone,
               std::function<void(const std::string&)> onError);

  // The version of the book decoded for `ns` ("" when none has been).
  std::string KnownVersion(std::string_view ns) const;
  // The record's book (an empty one when it has none or it cannot be read); null when the
  // record's book was left out and this version's is not cached.
  std::shared_ptr<const usage::UsageBook> BookOf(const RecordUsage& record) const;
  // The running charges' accruals over [started, now).
  std::vector<usage::Accrual> Running(const RecordUsage& record, usage::sys_seconds now) const;
  std::map<NsResource, Observed> Observe(const std::vector<RecordUsage>& records,
                                         usage::sys_seconds now) const;

  const RecordSource& source_;
  const usage::UsageConfig config_;
  const TimeZone zone_;
  const usage::BookOptions options_;
  const std::function<void(const std::string&)> onError_;
  BudgetLookup budgets_;  // set before use (SetBudgets before serving)

  mutable std::mutex mu_;
  mutable std::map<std::string, DecodedBook, std::less<>> books_;  // guarded by mu_
  mutable bool counting_ = false;                                  // guarded by mu_
  mutable std::map<NsResource, Observed> observed_;                // guarded by mu_
  mutable std::map<NsResource, int64_t> accrued_;                  // guarded by mu_
};

}  // namespace gpugate::cluster
