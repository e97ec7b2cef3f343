#include "quota/ledger.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "common/deadline_mutex.h"
#include "quota/limit_check.h"

namespace gpugate::quota {
namespace {

// The charges' key: "namespace/name".
std::string Key(std::string_view ns, std::string_view name) {
  std::string key;
  key.reserve(ns.size() + 1 + name.size());
  return key.append(ns).append("/").append(name);
}

// Key(ns, name) spelled on the stack, to look a key up without allocating: every review's
// charge asks for its pod's. A namespace is at most 63 bytes and a pod name 253, so every key
// the API server can send fits; a longer one (a hand-made review) is spelled on the heap.
class LookupKey {
 public:
  LookupKey(std::string_view ns, std::string_view name) {
    const size_t size = ns.size() + 1 + name.size();
    if (size > sizeof inline_) {
      heap_ = Key(ns, name);
      view_ = heap_;
      return;
    }
    std::memcpy(inline_, ns.data(), ns.size());
    inline_[ns.size()] = '/';
    std::memcpy(inline_ + ns.size() + 1, name.data(), name.size());
    view_ = std::string_view(inline_, size);
  }
  LookupKey(const LookupKey&) = delete;
  LookupKey& operator=(const LookupKey&) = delete;

  std::string_view view() const { return view_; }

 private:
  char inline_[320];
  std::string heap_;
  std::string_view view_;
};

// Hashes a std::string and a std::string_view alike (the standard guarantees equal hashes for
// equal texts), so a lookup by string_view needs no std::string.
struct TextHash {
  using is_transparent = void;
  size_t operator()(std::string_view text) const noexcept {
    return std::hash<std::string_view>{}(text);
  }
};

}  // namespace

struct Ledger::Impl {
  struct Entry {
    PodRef pod;
    Amounts amounts;
    std::optional<WallClock::time_point> releaseAt;  // set while the pod is being deleted
    std::optional<WallClock::time_point> started;    // set once the pod started (RecordStart)
  };
  struct NamespaceState {
    bool limited = false;  // the config names this namespace
    Amounts hard;          // its limits
    Amounts used;          // sum of its charges; zero entries are erased
  };
  using ChargeIndex =
      std::unordered_map<std::string, std::vector<Entry>, TextHash, std::equal_to<>>;

  LedgerOptions options;  // immutable after construction

  // Everything below is guarded by `mu`.
  // Timed, so a charge waiting behind slow journal writes gives up at its caller's deadline.
  mutable DeadlineMutex mu;
  // Also guards `charges`, for AwaitsStart, which must not wait behind a journal write: every
  // change of `charges` holds both, and only for memory work; readers hold either. Taken
  // after `mu`.
  mutable std::mutex indexMu;
  std::unique_ptr<Journal> journal;
  bool opened = false;
  // By Key(ns, name): one entry per admitted uid. Almost always one; more when a CREATE was
  // admitted for a name already charged (a duplicate the apiserver then refused, or a pod whose
  // delete was missed). See Reserve.
  ChargeIndex charges;
  size_t liveCharges = 0;
  size_t marked = 0;   // entries with a releaseAt (each adds a record to a compacted journal)
  size_t started = 0;  // entries with a start (each adds a record to a compacted journal)
  // Namespaces with a limit or a charge; one hash lookup per Reserve whatever their number.
  std::unordered_map<std::string, NamespaceState> namespaces;
  // Release times set by ReleaseAt -> Key(ns, name), earliest first. An item may be stale (its
  // charges released since, or given an earlier time): Expire checks each entry's own time.
  std::multimap<WallClock::time_point, std::string> releases;

  WallClock::time_point Now() const { return options.clock ? options.clock() : WallClock::now(); }

  // The pod's charges (its entry of `charges`), found without allocating.
  ChargeIndex::iterator FindCharges(std::string_view ns, std::string_view name) {
    return charges.find(LookupKey(ns, name).view());
  }

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
    {
      std::lock_guard index(indexMu);
      charges[Key(pod.ns, pod.name)].push_back(Entry{pod, amounts, std::nullopt, std::nullopt});
    }
    ++liveCharges;
    AddToTotals(pod.ns, amounts, +1);
  }

  // The one place a charge ends: its amounts leave the totals, and the end is reported.
  // The caller removes `e` from `charges`. A charge past its release time ended then: live,
  // Expire has ended it before any later end; in a replay, where nothing expires until Open,
  // a release that comes after that time ends it at that time all the same.
  void End(const Entry& e, WallClock::time_point endedAt) {
    if (e.releaseAt && *e.releaseAt < endedAt) endedAt = *e.releaseAt;
    AddToTotals(e.pod.ns, e.amounts, -1);
    --liveCharges;
    if (e.releaseAt) --marked;
    if (e.started) --started;
    const Charge charge{e.pod, e.amounts, e.releaseAt, e.started};
    if (e.started && options.usage) options.usage->Ended(charge, endedAt);
    if (options.onChargeEnded) options.onChargeEnded({charge, endedAt});
  }

  // Removes every charge held under one namespace/name.
  void Remove(ChargeIndex::iterator it, WallClock::time_point endedAt) {
    for (const Entry& e : it->second) End(e, endedAt);
    std::lock_guard index(indexMu);
    charges.erase(it);
  }

  // The charges RecordStart(uid) starts: the charge of `uid` unless it has started, or every
  // unstarted charge there when none has that uid.
  template <typename Entries>
  static auto ToStart(Entries& entries, std::string_view uid) {
    const bool known = std::any_of(entries.begin(), entries.end(),
                                   [&](const Entry& e) { return e.pod.uid == uid; });
    std::vector<decltype(&entries.front())> out;
    for (auto& e : entries) {
      if ((!known || e.pod.uid == uid) && !e.started) out.push_back(&e);
    }
    return out;
  }

  void Start(ChargeIndex::iterator it, std::string_view uid, WallClock::time_point at) {
    std::lock_guard index(indexMu);
    for (Entry* e : ToStart(it->second, uid)) {
      e->started = at;
      ++started;
      if (options.usage) options.usage->Started(Charge{e->pod, e->amounts, e->releaseAt, at});
    }
  }

  // Whether any charge under the name has started (its release then carries the end time).
  static bool AnyStarted(const std::vector<Entry>& entries) {
    return std::any_of(entries.begin(), entries.end(), [](const Entry& e) { return e.started; });
  }

  // The charges ReleaseAt(uid, at) gives an earlier release time (see ledger.h): the charge of
  // `uid`, or every charge there when none has it, unless it already ends by `at`.
  static std::vector<Entry*> ToMark(std::vector<Entry>& entries, std::string_view uid,
                                    WallClock::time_point at) {
    const bool known = std::any_of(entries.begin(), entries.end(),
                                   [&](const Entry& e) { return e.pod.uid == uid; });
    std::vector<Entry*> out;
    for (Entry& e : entries) {
      if ((!known || e.pod.uid == uid) && (!e.releaseAt || at < *e.releaseAt)) out.push_back(&e);
    }
    return out;
  }

  void Mark(ChargeIndex::iterator it, std::string_view uid, WallClock::time_point at) {
    const std::vector<Entry*> marks = ToMark(it->second, uid, at);
    for (Entry* e : marks) {
      if (!e->releaseAt) ++marked;
      e->releaseAt = at;
      // Told again, so a running pod's usage so far is counted to its release time at most.
      if (e->started && options.usage) {
        options.usage->Started(Charge{e->pod, e->amounts, e->releaseAt, e->started});
      }
    }
    if (!marks.empty()) releases.emplace(at, it->first);
  }

  // Ends every charge whose release time is before `now` (ResourceQuota stops counting a pod
  // once now is after deletionTimestamp + grace), at that release time.
  void Expire(WallClock::time_point now) {
    while (!releases.empty() && releases.begin()->first < now) {
      const std::string key = std::move(releases.begin()->second);
      releases.erase(releases.begin());
      auto it = charges.find(key);
      if (it == charges.end()) continue;
      std::lock_guard index(indexMu);
      std::erase_if(it->second, [&](const Entry& e) {
        if (!e.releaseAt || !(*e.releaseAt < now)) return false;
        End(e, *e.releaseAt);
        return true;
      });
      if (it->second.empty()) charges.erase(it);
    }
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

  // Replays one record as the call that wrote it changed memory. A replayed charge ends at the
  // time the journal says, so its end is reported as at that time.
  void ApplyRecord(const JournalRecord& record) {
    switch (record.type) {
      case JournalRecord::Type::kCharge:
        Apply(PodRef{record.ns, record.name, record.uid}, record.amounts);
        return;
      case JournalRecord::Type::kRelease:
        // An untimed release (before format 3) ended charges that never started.
        if (auto it = FindCharges(record.ns, record.name); it != charges.end()) {
          Remove(it, record.at.value_or(Now()));
        }
        return;
      case JournalRecord::Type::kStart:
        if (auto it = FindCharges(record.ns, record.name); it != charges.end()) {
          Start(it, record.uid, record.at.value_or(WallClock::time_point{}));
        }
        return;
      case JournalRecord::Type::kBook:
        // Without usage kept, the book is left out: the next compaction drops it.
        if (options.usage && replayed) replayed = options.usage->Restore(record.book);
        return;
      case JournalRecord::Type::kReleaseAt:
        if (auto it = FindCharges(record.ns, record.name); it != charges.end()) {
          Mark(it, record.uid, record.releaseAt);
        }
        return;
    }
  }

  // Sorted by namespace/name/uid.
  std::vector<Charge> SortedCharges() const {
    std::vector<Charge> out;
    out.reserve(liveCharges);
    for (const auto& [key, entries] : charges) {
      for (const Entry& e : entries) {
        out.push_back(Charge{e.pod, e.amounts, e.releaseAt, e.started});
      }
    }
    std::sort(out.begin(), out.end(), [](const Charge& a, const Charge& b) {
      return std::tie(a.pod.ns, a.pod.name, a.pod.uid) < std::tie(b.pod.ns, b.pod.name, b.pod.uid);
    });
    return out;
  }

  // A failed compaction does not fail the admission that triggered it: the journal keeps its
  // old file and descriptor, which still hold every record, so nothing is lost; the next
  // successful change tries again. A marked charge is written as its charge and its mark (a
  // mark names its uid, so it replays onto that charge alone).
  void MaybeCompact() {
    if (!journal || !journal->ShouldCompact(liveCharges + marked + started)) return;
    std::vector<JournalRecord> live;
    live.reserve(liveCharges + marked + started + 1);
    if (options.usage) {
      JournalRecord book{JournalRecord::Type::kBook, "", "", "", {}};
      book.book = options.usage->Snapshot();
      live.push_back(std::move(book));
    }
    for (Charge& c : SortedCharges()) {
      live.push_back(
          {JournalRecord::Type::kCharge, c.pod.ns, c.pod.name, c.pod.uid, std::move(c.amounts)});
      if (c.started) {
        JournalRecord start{JournalRecord::Type::kStart, c.pod.ns, c.pod.name, c.pod.uid, {}};
        start.at = c.started;
        live.push_back(std::move(start));
      }
      if (c.releaseAt) {
        live.push_back({JournalRecord::Type::kReleaseAt,
                        std::move(c.pod.ns),
                        std::move(c.pod.name),
                        std::move(c.pod.uid),
                        {},
                        *c.releaseAt});
      }
    }
    (void)journal->Compact(live);
  }

  // The first error a replayed record gave (a book that does not decode): fails Open.
  Status replayed;

  Status CheckOpened() const {
    if (journal && !opened) return Fail("quota ledger used before Open");
    return {};
  }

  // Every change's way in: takes `lock` (on `mu`) by `deadline`, checks the ledger was opened
  // and ends the charges whose release time has passed, so no answer counts one. Returns the
  // time it read; `doing` ("charge", "release", ...) names the call in the error.
  Result<WallClock::time_point> Enter(std::unique_lock<DeadlineMutex>& lock, Deadline deadline,
                                      std::string_view doing, const PodRef& pod) {
    if (!lock.try_lock_until(deadline)) {
      return Fail("no time left to " + std::string(doing) + " " + pod.ns + "/" + pod.name +
                  ": the ledger was busy writing other charges to its journal");
    }
    if (Status ok = CheckOpened(); !ok) return std::unexpected(ok.error());
    const WallClock::time_point now = Now();
    Expire(now);
    return now;
  }
};

Ledger::Ledger(QuotaConfig config, std::unique_ptr<Journal> journal, LedgerOptions options)
    : config_(std::move(config)), impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
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
    // Ends replayed here were reported by the process that journaled them.
    auto onEnded = std::exchange(impl_->options.onChargeEnded, nullptr);
    Status replayed =
        impl_->journal->Replay([this](const JournalRecord& r) { impl_->ApplyRecord(r); });
    impl_->options.onChargeEnded = std::move(onEnded);
    if (!replayed) return replayed;
    if (!impl_->replayed) return Fail("usage book: " + impl_->replayed.error().message);
  }
  impl_->opened = true;
  impl_->Expire(impl_->Now());
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
  if (auto entered = impl_->Enter(lock, request.deadline, "charge", pod); !entered) {
    return std::unexpected(entered.error());
  }
  if (auto existing = impl_->FindCharges(pod.ns, pod.name);
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
  auto entered = impl_->Enter(lock, deadline, "release", pod);
  if (!entered) return std::unexpected(entered.error());
  const WallClock::time_point now = *entered;
  auto it = impl_->FindCharges(pod.ns, pod.name);
  if (it == impl_->charges.end()) return false;
  if (impl_->journal) {
    JournalRecord record{JournalRecord::Type::kRelease, pod.ns, pod.name, pod.uid, {}};
    if (Impl::AnyStarted(it->second)) record.at = now;  // the end its usage runs to
    if (Status written = impl_->journal->Append(record); !written) {
      return std::unexpected(written.error());
    }
  }
  impl_->Remove(it, now);
  impl_->MaybeCompact();
  return true;
}

Result<bool> Ledger::ReleaseAt(const PodRef& pod, WallClock::time_point releaseAt,
                               Deadline deadline) {
  std::unique_lock lock(impl_->mu, std::defer_lock);
  auto entered = impl_->Enter(lock, deadline, "record the deletion of", pod);
  if (!entered) return std::unexpected(entered.error());
  const WallClock::time_point now = *entered;
  auto it = impl_->FindCharges(pod.ns, pod.name);
  if (it == impl_->charges.end()) return false;
  // Memory changes only once the journal has the mark; a mark that changes nothing is not written.
  if (Impl::ToMark(it->second, pod.uid, releaseAt).empty()) return true;
  if (impl_->journal) {
    JournalRecord record{JournalRecord::Type::kReleaseAt, pod.ns, pod.name, pod.uid, {}, releaseAt};
    if (Status written = impl_->journal->Append(record); !written) {
      return std::unexpected(written.error());
    }
  }
  impl_->Mark(it, pod.uid, releaseAt);
  impl_->Expire(now);  // a release time already past ends the charge now
  impl_->MaybeCompact();
  return true;
}

Result<bool> Ledger::RecordStart(const PodRef& pod, WallClock::time_point startedAt,
                                 Deadline deadline) {
  std::unique_lock lock(impl_->mu, std::defer_lock);
  if (auto entered = impl_->Enter(lock, deadline, "record the start of", pod); !entered) {
    return std::unexpected(entered.error());
  }
  auto it = impl_->FindCharges(pod.ns, pod.name);
  if (it == impl_->charges.end() || Impl::ToStart(it->second, pod.uid).empty()) return false;
  if (impl_->journal) {
    JournalRecord record{JournalRecord::Type::kStart, pod.ns, pod.name, pod.uid, {}};
    record.at = startedAt;
    if (Status written = impl_->journal->Append(record); !written) {
      return std::unexpected(written.error());
    }
  }
  impl_->Start(it, pod.uid, startedAt);
  impl_->MaybeCompact();
  return true;
}

bool Ledger::AwaitsStart(const PodRef& pod) const {
  std::lock_guard index(impl_->indexMu);
  auto it = impl_->FindCharges(pod.ns, pod.name);
  return it != impl_->charges.end() && !Impl::ToStart(it->second, pod.uid).empty();
}

WallClock::time_point Ledger::Now() const { return impl_->Now(); }

bool Ledger::MayWait() const { return impl_->journal != nullptr; }

std::vector<NamespaceUsage> Ledger::Usage(std::string_view onlyNs) const {
  std::lock_guard lock(impl_->mu);
  impl_->Expire(impl_->Now());
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
  impl_->Expire(impl_->Now());
  return impl_->SortedCharges();
}

}  // namespace gpugate::quota
