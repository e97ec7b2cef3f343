#include "cluster/cluster_usage.h"

#include <algorithm>
#include <cstdint>

#include "usage/accruals.h"
#include "usage/book_codec.h"
#include "usage/spent.h"

namespace gpugate::cluster {
namespace {

using usage::sys_seconds;

sys_seconds Seconds(WallClock::time_point t) { return std::chrono::floor<std::chrono::seconds>(t); }

}  // namespace

Result<std::unique_ptr<ClusterUsage>> ClusterUsage::Create(
    const RecordSource& source, const usage::UsageConfig& config,
    std::function<void(const std::string&)> onError) {
  Result<TimeZone> zone = TimeZone::Load(config.timeZone);
  if (!zone) return Fail("usage.timeZone: " + zone.error().message);
  return std::unique_ptr<ClusterUsage>(
      new ClusterUsage(source, config, std::move(*zone), std::move(onError)));
}

ClusterUsage::ClusterUsage(const RecordSource& source, usage::UsageConfig config, TimeZone zone,
                           std::function<void(const std::string&)> onError)
    : source_(source),
      config_(std::move(config)),
      zone_(std::move(zone)),
      options_(usage::BookOptionsFor(config_)),
      onError_(std::move(onError)) {
  budgets_ = [this](std::string_view ns) -> std::optional<usage::Budget> {
    const usage::Budget* budget = usage::BudgetFor(config_, ns);
    if (!budget) return std::nullopt;
    return *budget;
  };
}

std::shared_ptr<const usage::UsageBook> ClusterUsage::BookOf(const RecordUsage& record) const {
  const std::string& version = record.version;
  {
    std::lock_guard lock(mu_);
    auto known = books_.find(record.ns);
    if (known != books_.end() && known->second.version == version && !version.empty()) {
      return known->second.book;
    }
  }
  if (record.bookLeftOut) return nullptr;
  std::shared_ptr<const usage::UsageBook> book;
  if (record.usage.is_null()) {
    book = std::make_shared<usage::UsageBook>(zone_, options_);
  } else if (Result<usage::UsageBook> decoded =
                 usage::DecodeBook(record.usage.dump(), zone_, options_)) {
    book = std::make_shared<usage::UsageBook>(std::move(*decoded));
  } else {
    if (onError_) {
      onError_("the usage of " + record.ns + " is not counted: its GPUQuota's status.usage " +
               "cannot be read: " + decoded.error().message);
    }
    book = std::make_shared<usage::UsageBook>(zone_, options_);
  }
  std::lock_guard lock(mu_);
  books_[record.ns] = {version, book};
  return book;
}

std::vector<usage::Accrual> ClusterUsage::Running(const RecordUsage& record,
                                                  sys_seconds now) const {
  std::vector<usage::Accrual> out;
  for (const auto& [name, list] : record.charges) {
    for (const RecordedCharge& charge : list) {
      if (!charge.started) continue;  // not started: holds nothing yet
      const sys_seconds from = std::min(Seconds(*charge.started), now);
      for (usage::Accrual& a : usage::Accruals(record.ns, charge.amounts, {from, now})) {
        out.push_back(std::move(a));
      }
    }
  }
  return out;
}

std::string ClusterUsage::KnownVersion(std::string_view ns) const {
  std::lock_guard lock(mu_);
  auto known = books_.find(ns);
  return known == books_.end() ? std::string() : known->second.version;
}

usage::BudgetCheck ClusterUsage::Check(std::string_view ns, const quota::Amounts& charge,
                                       sys_seconds now) const {
  std::optional<usage::Budget> budget = budgets_(ns);
  if (!budget) return {};
  const usage::Period period = usage::PeriodAt(budget->period, zone_, now);
  std::optional<RecordUsage> record = source_.RecordOf(ns, KnownVersion(ns));
  if (!record) record = RecordUsage{.ns = std::string(ns)};
  record->ns = std::string(ns);
  auto book = BookOf(*record);
  if (!book) {  // the book was left out, and another reader has since cached a newer one
    record = source_.RecordOf(ns, {}).value_or(RecordUsage{.ns = std::string(ns)});
    book = BookOf(*record);
  }
  const std::vector<usage::Accrual> running = Running(*record, now);
  return usage::CheckBudget(*budget, ns, usage::Spent(*book, running, period.span), charge, period,
                            zone_);
}

usage::UsageReport ClusterUsage::Report(const usage::ReportQuery& query, sys_seconds now) const {
  std::vector<std::shared_ptr<const usage::UsageBook>> held;
  std::vector<const usage::UsageBook*> books;
  std::vector<usage::Accrual> running;
  for (const RecordUsage& record : source_.AllRecords()) {
    held.push_back(BookOf(record));
    books.push_back(held.back().get());
    for (usage::Accrual& a : Running(record, now)) running.push_back(std::move(a));
  }
  usage::BookOptions unbounded = options_;
  unbounded.maxBytes = SIZE_MAX;
  return usage::BuildReport(usage::MergeBooks(books, zone_, unbounded), running, query);
}

std::map<ClusterUsage::NsResource, ClusterUsage::Observed> ClusterUsage::Observe(
    const std::vector<RecordUsage>& records, sys_seconds now) const {
  std::map<NsResource, Observed> out;
  for (const RecordUsage& record : records) {
    for (const auto& [key, kept] : BookOf(record)->keys()) {
      if (key.ns != record.ns) continue;  // a book counts for its own namespace only
      Observed& o = out[{key.ns, key.resource}];
      for (size_t i = 0; i < kept.days.size(); ++i) {
        o.days[kept.first + std::chrono::days(static_cast<int64_t>(i))] += kept.days[i];
      }
    }
    for (const usage::Accrual& a : Running(record, now)) {
      out[{a.key.ns, a.key.resource}].running += a.milli * (a.held.to - a.held.from).count();
    }
  }
  return out;
}

std::map<std::pair<std::string, std::string>, int64_t> ClusterUsage::Accrued(
    sys_seconds now) const {
  if (!source_.RecordsSynced()) return {};
  std::map<NsResource, Observed> seen = Observe(source_.AllRecords(), now);
  std::lock_guard lock(mu_);
  for (const auto& [key, now_seen] : seen) {
    int64_t& total = accrued_[key];  // 0 for a key seen first
    if (!counting_) continue;
    const Observed& before = observed_[key];
    // Days only grow as pods finish (pruned days are gone from `seen`, never negative), and a
    // finished pod's running share moves into its days: the sum is what accrued since.
    int64_t grew = now_seen.running - before.running;
    for (const auto& [day, milli] : now_seen.days) {
      auto was = before.days.find(day);
      grew += std::max<int64_t>(0, milli - (was == before.days.end() ? 0 : was->second));
    }
    if (grew > 0) total += grew;
  }
  observed_ = std::move(seen);
  counting_ = true;
  return accrued_;
}

std::vector<usage::BudgetStanding> ClusterUsage::Standings(sys_seconds now) const {
  std::vector<usage::BudgetStanding> out;
  for (const RecordUsage& record : source_.AllRecords()) {
    const auto book = BookOf(record);
    const std::vector<usage::Accrual> running = Running(record, now);
    if (book->keys().empty() && running.empty()) continue;
    std::optional<usage::Budget> budget = budgets_(record.ns);
    if (!budget) continue;
    const usage::Period period = usage::PeriodAt(budget->period, zone_, now);
    const auto spent = usage::Spent(*book, running, period.span);
    for (const auto& [limit, milliHours] : budget->gpuHours) {
      out.push_back({record.ns, limit, usage::FormatPeriodSpec(budget->period), milliHours,
                     usage::SpentOn(spent, record.ns, limit)});
    }
  }
  return out;
}

}  // namespace gpugate::cluster
