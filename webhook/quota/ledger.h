// The namespace GPU quota ledger: who holds what, checked and charged atomically, and durable
// through a journal when one is given.
//
// Thread-safety: every public method may be called from any thread. Reserve's check-and-charge
// happens under one mutex, together with the journal append and fsync, so concurrent admissions
// never admit past a limit and an admission is answered only after its charge is on disk.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "quota/accounting.h"
#include "quota/amounts.h"
#include "quota/journal.h"
#include "quota/quota_config.h"
#include "quota/usage_recorder.h"

namespace gpugate::quota {

// A charge that has ended, and when: at a Release, at its release time (ReleaseAt).
struct EndedCharge {
  Charge charge;
  WallClock::time_point endedAt;
};

struct LedgerOptions {
  // What release times are read against; null: the system clock.
  std::function<WallClock::time_point()> clock;
  // Called once for each charge that ends, as it ends (for a charge whose release time passed,
  // at the next call that reads the ledger, with `endedAt` its release time). The one place
  // where "this pod's charge ends now, at time T" is known. Called under the ledger's lock: it
  // must not call the ledger. An end is not journaled by itself (see ReleaseAt), so a charge
  // found past its release time when the journal is replayed is reported at Open, even if a
  // process before this one reported it already.
  std::function<void(const EndedCharge&)> onChargeEnded;
  // Told of every start and every end of a started charge, replayed ones included
  // (quota/usage_recorder.h); null: no usage is kept. Not owned; outlives the ledger.
  UsageRecorder* usage = nullptr;
};

class Ledger : public Accounting {
 public:
  // `journal` may be null (memory only). Limits and weights come from the config.
  Ledger(QuotaConfig config, std::unique_ptr<Journal> journal, LedgerOptions options = {});
  ~Ledger();  // defined where Impl is complete

  // Replays the journal (if any) into memory. Call once before serving; with a journal, Reserve
  // and Release fail until it has succeeded. An error (unreadable file, a record from a newer
  // format) fails start-up; a torn last record is ignored and cut off, as documented.
  Status Open();

  // Checks `amounts` against the namespace's limits and, unless `dryRun`, charges it to `pod`;
  // past a limit, refuses (kExceeded) or, without `enforce`, charges anyway (kChargedOverLimit).
  // The same namespace/name and uid (both empty counts as the same) is kAlreadyCharged.
  // Another uid under a name that already holds a charge is charged beside it, never in its
  // place: the webhook cannot tell a duplicate CREATE that the apiserver will refuse
  // (AlreadyExists) from a new pod whose predecessor's delete was missed, and replacing would
  // under-count in the first case (a smaller duplicate erasing a running pod's charge) and so
  // admit past the limit. Keeping both over-counts until the name's next release, which frees
  // them all. Only resources with a positive amount and a limit in the namespace are checked.
  // Negative amounts are an error. An error means the journal could not be written: nothing was
  // charged and the caller must refuse the admission.
  // Waiting for another charge's journal write ends at `deadline` (an error, nothing charged);
  // a write once begun is finished.
  Result<ReserveResult> Reserve(const ReserveRequest& request) override;
  using Accounting::Reserve;

  // Gives back exactly what was charged under `pod`'s namespace/name (the recorded amounts, not a
  // recomputation), for every uid held there: names are unique among live pods, so a DELETE or
  // a terminal status of the pod now holding the name ends every charge made under it (any other
  // uid there is a refused duplicate or a predecessor already gone). Releasing an unknown pod is
  // not an error. Returns whether something was released; an error means the journal could not
  // be written and nothing was released.
  Result<bool> Release(const PodRef& pod, Deadline deadline) override;
  using Accounting::Release;

  // Marks the charge of `pod`'s uid under its namespace/name (every charge there when none has
  // that uid) as ending at `releaseAt`, or at the earlier time it already had, and journals that
  // before answering. A marked charge counts, in Reserve's checks and in Usage, while the clock
  // is not past its release time, and is dropped by the first call that finds it past (Reserve,
  // Release, ReleaseAt, Usage, Charges, Open). Dropping writes nothing: the journal's release-at
  // record already says when the charge ends, so a replay drops it at the same moment. A mark
  // that changes nothing (an earlier one stands) writes nothing either. Returns whether
  // anything is charged there; an error means the journal could not be written and nothing
  // changed.
  Result<bool> ReleaseAt(const PodRef& pod, WallClock::time_point releaseAt,
                         Deadline deadline) override;

  // Records the start on the charge(s) accounting.h names, journaled before answering
  // (a kStart record), unless every one of them has a start already: then nothing is written.
  // A charge's start is written once. Starts are kept to the millisecond.
  Result<bool> RecordStart(const PodRef& pod, WallClock::time_point startedAt,
                           Deadline deadline) override;
  // Never waits behind a journal write: reads under a lock held only for memory work.
  bool AwaitsStart(const PodRef& pod) const override;

  WallClock::time_point Now() const override;

  // Usage of every namespace that has a limit or a charge, sorted by namespace; `onlyNs` filters.
  std::vector<NamespaceUsage> Usage(std::string_view onlyNs = {}) const override;

  // Every charge that counts, sorted by namespace/name/uid (for tests and compaction).
  std::vector<Charge> Charges() const;

  const QuotaConfig& config() const override { return config_; }
  // Only with a journal: a memory-only ledger never waits but for its lock, held only for
  // memory work then.
  bool MayWait() const override;

 private:
  struct Impl;
  QuotaConfig config_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gpugate::quota
