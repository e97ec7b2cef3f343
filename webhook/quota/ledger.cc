#include "quota/ledger.h"

#include <algorithm>
#include <limits>
#include <unordered_map>

#include "common/deadline_mutex.h"
#include "quota/limit_check.h"

namespace gpugate::quota {
namespace {

std::string Key(std::string_view ns, std::string_view name) {
  std::string key;
  key.reserve(ns.size() + 1 + name.size());
  return key.append(ns).append("/").append(name);
}

}  // namespace

struct Ledger::Impl {
  struct Entry {
    PodRef pod;
    Amounts amounts;
  };
  struct NamespaceState {
    bool limited = false;  // the config names this namespace
    Amounts hard;          // its limits
    Amounts used;          // sum of its charges; zero entries are erased
  };

  // Everything below is guarded by `mu`.
  // Timed, so a charge waiting behind slow journal writes gives up at its caller's deadline.
  mutable DeadlineMutex mu;
  std::unique_ptr<Journal> journal;
  bool opened = false;
  // By Key(ns, name): one entry per admitted uid. Almost always one; more when a CREATE was
  // admitted for a name already charged (a duplicate the apiserver then refused, or a pod whose
  // delete was missed). See Reserve.
  std::unordered_map<std::string, std::vector<Entry>> charges;
  size_t liveCharges = 0;
  // Namespaces with a limit or a charge; one hash lookup per Reserve whatever their number.
  std::unordered_map<std::string, NamespaceState> namespaces;

  // Adds `sign` x `amounts` to the namespace's totals, forgetting a namespace left with nothing.
  void AddToTotals(const std::string& ns, const Amounts& amounts, int sign) {
    auto it = namespaces.try_emplace(ns).first;
    for (const auto& [resource, milli] : amounts) {
      int64_t& total = it->second.used[resource];
      total += sign * milli;
      if (total == 0) it->second.used.erase(resource);
    }
    if (!it->second.limited && it->second.used.empty()) namespaces.erase(it);
  }

  // Adds a charge for `pod` beside any its namespace/name already holds.
  void Apply(const PodRef& pod, const Amounts& amounts) {
    charges[Key(pod.ns, pod.name)].push_back(Entry{pod, amounts});
    ++liveCharges;
    AddToTotals(pod.ns, amounts, +1);
  }

  // Removes every charge held under one namespace/name.
  void Remove(std::unordered_map<std::string, std::vector<Entry>>::iterator it) {
    for (const Entry& e : it->second) AddToTotals(e.pod.ns, e.amounts, -1);
    liveCharges -= it->second.size();
    charges.erase(it);
  }

  // A resource whose namespace total `amounts` would take past int64, or "". Pod charges
  // saturate at int64's maximum, and a total that wrapped would be wrong for every later check and
  // release, so such a charge is refused even where no limit applies.
  std::string Overflowing(const std::string& ns, const Amounts& amounts) const {
    auto state = namespaces.find(ns);
    if (state == namespaces.end()) return "";
    for (const auto& [resource, milli] : amounts) {
      auto used = state->second.used.find(resource);
      int64_t total = 0;
      if (used != state->second.used.end() && __builtin_add_overflow(used->second, milli, &total)) {
        return resource;
      }
    }
    return "";
  }

  // Kubernetes' denial message for the resources that would go over, or "" when all fit.
  std::string Excess(const std::string& ns, const Amounts& amounts) const {
    auto state = namespaces.find(ns);
    if (state == namespaces.end() || !state->second.limited) return "";
    return ExceededMessage(ns, state->second.hard, state->second.used, amounts);
  }

  void ApplyRecord(const JournalRecord& record) {
    if (record.type == JournalRecord::Type::kCharge) {
      Apply(PodRef{record.ns, record.name, record.uid}, record.amounts);
      return;
    }
    auto it = charges.find(Key(record.ns, record.name));
    if (it != charges.end()) Remove(it);
  }

  std::vector<Charge> SortedCharges() const {
    std::vector<Charge> out;
    out.reserve(liveCharges);
    for (const auto& [key, entries] : charges) {
      for (const Entry& e : entries) out.push_back(Charge{e.pod, e.amounts});
    }
    std::sort(out.begin(), out.end(), [](const Charge& a, const Charge& b) {
      return std::tie(a.pod.ns, a.pod.name, a.pod.uid) < std::tie(b.pod.ns, b.pod.name, b.pod.uid);
    });
    return out;
  }

  // A failed compaction does not fail the admission that triggered it: the journal keeps its
  // old file and descriptor, which still hold every record, so nothing is lost; the next
  // successful change tries again.
  void MaybeCompact() {
    if (!journal || !journal->ShouldCompact(liveCharges)) return;
    std::vector<JournalRecord> live;
    live.reserve(liveCharges);
    for (Charge& c : SortedCharges()) {
      live.push_back({JournalRecord::Type::kCharge, std::move(c.pod.ns), std::move(c.pod.name),
                      std::move(c.pod.uid), std::move(c.amounts)});
    }
    (void)journal->Compact(live);
  }

  Status CheckOpened() const {
    if (journal && !opened) return Fail("quota ledger used before Open");
    return {};
  }
};

Ledger::Ledger(QuotaConfig config, std::unique_ptr<Journal> journal)
    : config_(std::move(config)), impl_(std::make_unique<Impl>()) {
  impl_->journal = std::move(journal);
  for (const auto& [ns, hard] : config_.limits) {
    impl_->namespaces[ns] = Impl::NamespaceState{true, hard, {}};
  }
}

Ledger::~Ledger() = default;

Status Ledger::Open() {
  std::lock_guard lock(impl_->mu);
  if (impl_->opened) return Fail("quota ledger opened twice");
  if (impl_->journal) {
    Status replayed =
        impl_->journal->Replay([this](const JournalRecord& r) { impl_->ApplyRecord(r); });
    if (!replayed) return replayed;
  }
  impl_->opened = true;
  impl_->MaybeCompact();
  return {};
}

Result<ReserveResult> Ledger::Reserve(const ReserveRequest& request) {
  const PodRef& pod = request.pod;
  const Amounts& amounts = request.amounts;
  for (const auto& [resource, milli] : amounts) {
    if (milli < 0) return Fail("negative charge " + resource + "=" + FormatMilli(milli));
  }
  std::unique_lock lock(impl_->mu, std::defer_lock);
  if (!lock.try_lock_until(request.deadline)) {
    return Fail("no time left to charge " + pod.ns + "/" + pod.name +
                ": the ledger was busy writing other charges to its journal");
  }
  if (Status ok = impl_->CheckOpened(); !ok) return std::unexpected(ok.error());
  if (auto existing = impl_->charges.find(Key(pod.ns, pod.name));
      existing != impl_->charges.end()) {
    for (const Impl::Entry& e : existing->second) {
      if (e.pod.uid == pod.uid) return ReserveResult{ReserveOutcome::kAlreadyCharged};
    }
  }
  std::string excess = impl_->Excess(pod.ns, amounts);
  if (!excess.empty() && request.enforce) {
    return ReserveResult{ReserveOutcome::kExceeded, std::move(excess)};
  }
  if (std::string resource = impl_->Overflowing(pod.ns, amounts); !resource.empty()) {
    return Fail(pod.ns + "'s " + resource + " total would pass " +
                FormatMilli(std::numeric_limits<int64_t>::max()) + ", the most the ledger counts");
  }
  ReserveResult charged = excess.empty()
                              ? ReserveResult{ReserveOutcome::kCharged}
                              : ReserveResult{ReserveOutcome::kChargedOverLimit, std::move(excess)};
  if (request.dryRun) return charged;
  if (impl_->journal) {
    Status written =
        impl_->journal->Append({JournalRecord::Type::kCharge, pod.ns, pod.name, pod.uid, amounts});
    if (!written) return std::unexpected(written.error());
  }
  impl_->Apply(pod, amounts);
  impl_->MaybeCompact();
  return charged;
}

Result<bool> Ledger::Release(const PodRef& pod, Deadline deadline) {
  std::unique_lock lock(impl_->mu, std::defer_lock);
  if (!lock.try_lock_until(deadline)) {
    return Fail("no time left to release " + pod.ns + "/" + pod.name +
                ": the ledger was busy writing other charges to its journal");
  }
  if (Status ok = impl_->CheckOpened(); !ok) return std::unexpected(ok.error());
  auto it = impl_->charges.find(Key(pod.ns, pod.name));
  if (it == impl_->charges.end()) return false;
  if (impl_->journal) {
    Status written =
        impl_->journal->Append({JournalRecord::Type::kRelease, pod.ns, pod.name, pod.uid, {}});
    if (!written) return std::unexpected(written.error());
  }
  impl_->Remove(it);
  impl_->MaybeCompact();
  return true;
}

bool Ledger::MayWait() const { return impl_->journal != nullptr; }

std::vector<NamespaceUsage> Ledger::Usage(std::string_view onlyNs) const {
  std::lock_guard lock(impl_->mu);
  std::vector<NamespaceUsage> out;
  auto add = [&out](const std::string& ns, const Impl::NamespaceState& state) {
    NamespaceUsage usage{ns, {}};
    for (const auto& [resource, hard] : state.hard) usage.resources[resource].hard = hard;
    for (const auto& [resource, used] : state.used) usage.resources[resource].used = used;
    out.push_back(std::move(usage));
  };
  if (!onlyNs.empty()) {
    auto it = impl_->namespaces.find(std::string(onlyNs));
    if (it != impl_->namespaces.end()) add(it->first, it->second);
    return out;
  }
  for (const auto& [ns, state] : impl_->namespaces) add(ns, state);
  std::sort(out.begin(), out.end(),
            [](const NamespaceUsage& a, const NamespaceUsage& b) { return a.ns < b.ns; });
  return out;
}

std::vector<Charge> Ledger::Charges() const {
  std::lock_guard lock(impl_->mu);
  return impl_->SortedCharges();
}

}  // namespace gpugate::quota
