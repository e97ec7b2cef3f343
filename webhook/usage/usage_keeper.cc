#include "usage/usage_keeper.h"

#include <algorithm>
#include <set>

#include "usage/accruals.h"
#include "usage/book_codec.h"
#include "usage/spent.h"

namespace gpugate::usage {
namespace {

sys_seconds Seconds(WallClock::time_point t) { return std::chrono::floor<std::chrono::seconds>(t); }

}  // namespace

Result<std::unique_ptr<UsageKeeper>> UsageKeeper::Create(
    const UsageConfig& config, std::function<void(const std::string&)> onError) {
  Result<TimeZone> zone = TimeZone::Load(config.timeZone);
  if (!zone) return Fail("usage.timeZone: " + zone.error().message);
  return std::unique_ptr<UsageKeeper>(new UsageKeeper(config, *zone, std::move(onError)));
}

UsageKeeper::UsageKeeper(UsageConfig config, TimeZone zone,
                         std::function<void(const std::string&)> onError)
    : config_(std::move(config)),
      zone_(std::move(zone)),
      onError_(std::move(onError)),
      book_(zone_, BookOptionsFor(config_)) {}

void UsageKeeper::Started(const quota::Charge& charge) {
  std::lock_guard lock(mu_);
  std::optional<sys_seconds> releaseAt;
  if (charge.releaseAt) releaseAt = Seconds(*charge.releaseAt);
  running_[{charge.pod.ns, charge.pod.name, charge.pod.uid}] =
      Running{charge.amounts, Seconds(charge.started.value_or(WallClock::time_point{})), releaseAt};
}

void UsageKeeper::Ended(const quota::Charge& charge, WallClock::time_point endedAt) {
  std::lock_guard lock(mu_);
  running_.erase({charge.pod.ns, charge.pod.name, charge.pod.uid});
  if (!charge.started) return;
  const sys_seconds to = Seconds(endedAt);
  const Span held{std::min(Seconds(*charge.started), to), to};
  const std::vector<Accrual> accruals = Accruals(charge.pod.ns, charge.amounts, held);
  book_.Prune(to);
  if (Status st = book_.Accrue(accruals); !st) {
    if (onError_) {
      onError_("usage of " + charge.pod.ns + "/" + charge.pod.name +
               " not recorded: " + st.error().message);
    }
    return;
  }
  for (const Accrual& a : accruals) {
    finished_[{a.key.ns, a.key.resource}] += a.milli * (held.to - held.from).count();
  }
}

std::string UsageKeeper::Snapshot() const {
  std::lock_guard lock(mu_);
  return EncodeBook(book_);
}

Status UsageKeeper::Restore(std::string_view snapshot) {
  Result<UsageBook> book = DecodeBook(snapshot, zone_, BookOptionsFor(config_));
  if (!book) return std::unexpected(book.error());
  std::lock_guard lock(mu_);
  book_ = std::move(*book);
  running_.clear();
  return {};
}

std::vector<Accrual> UsageKeeper::RunningAccruals(sys_seconds now) const {
  std::vector<Accrual> out;
  for (const auto& [pod, r] : running_) {
    const sys_seconds to = std::max(r.started, r.releaseAt ? std::min(*r.releaseAt, now) : now);
    for (Accrual& a : Accruals(std::get<0>(pod), r.amounts, {r.started, to})) {
      out.push_back(std::move(a));
    }
  }
  return out;
}

BudgetCheck UsageKeeper::Check(std::string_view ns, const quota::Amounts& charge,
                               sys_seconds now) const {
  const Budget* budget = BudgetFor(config_, ns);
  if (!budget) return {};
  const Period period = PeriodAt(budget->period, zone_, now);
  std::lock_guard lock(mu_);
  const std::vector<Accrual> running = RunningAccruals(now);
  return CheckBudget(*budget, ns, Spent(book_, running, period.span), charge, period, zone_);
}

UsageReport UsageKeeper::Report(const ReportQuery& query, sys_seconds now) const {
  std::lock_guard lock(mu_);
  return BuildReport(book_, RunningAccruals(now), query);
}

std::map<std::pair<std::string, std::string>, int64_t> UsageKeeper::Accrued(sys_seconds now) const {
  std::lock_guard lock(mu_);
  auto out = finished_;
  for (const Accrual& a : RunningAccruals(now)) {
    out[{a.key.ns, a.key.resource}] += a.milli * (a.held.to - a.held.from).count();
  }
  return out;
}

std::vector<BudgetStanding> UsageKeeper::Standings(sys_seconds now) const {
  std::lock_guard lock(mu_);
  const std::vector<Accrual> running = RunningAccruals(now);
  std::set<std::string> namespaces;
  for (const auto& [key, usage] : book_.keys()) namespaces.insert(key.ns);
  for (const auto& [pod, r] : running_) namespaces.insert(std::get<0>(pod));
  std::vector<BudgetStanding> out;
  for (const std::string& ns : namespaces) {
    const Budget* budget = BudgetFor(config_, ns);
    if (!budget) continue;
    const Period period = PeriodAt(budget->period, zone_, now);
    const auto spent = Spent(book_, running, period.span);
    for (const auto& [limit, milliHours] : budget->gpuHours) {
      out.push_back(
          {ns, limit, FormatPeriodSpec(budget->period), milliHours, SpentOn(spent, ns, limit)});
    }
  }
  return out;
}

}  // namespace gpugate::usage
