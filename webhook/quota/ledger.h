// The namespace GPU quota ledger: who holds what, checked and charged atomically, and durable
// through a journal when one is given.
//
// Thread-safety: every public method may be called from any thread. Reserve's check-and-charge
// happens under one mutex, together with the journal append and fsync, so concurrent admissions
// never admit past a limit and an admission is answered only after its charge is on disk.
#pragma once

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

namespace gpugate::quota {

class Ledger : public Accounting {
 public:
  // `journal` may be null (memory only). Limits and weights come from the config.
  Ledger(QuotaConfig config, std::unique_ptr<Journal> journal);
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

  // Usage of every namespace that has a limit or a charge, sorted by namespace; `onlyNs` filters.
  std::vector<NamespaceUsage> Usage(std::string_view onlyNs = {}) const override;

  // Every charge, sorted by namespace/name/uid (for tests and compaction).
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
