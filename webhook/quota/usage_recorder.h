// The ledger's port to usage accounting (usage/usage_keeper.h keeps it): told when a charge
// starts and when a started charge ends, under the ledger's lock, also while the journal is
// replayed, so the usage derives from the journal alone and a charge's usage is recorded exactly
// once: live, in the journal write that ends it (a start record, a timed release, a release-at
// record whose time passes); after a crash, by the replay of those same records. A compaction
// stores Snapshot() as the journal's first record; a replay gives it back to Restore.
//
// Thread-safety: the ledger calls it under its own lock; an implementation that others read
// (budget checks, reports) locks for itself, taking its lock after the ledger's.
#pragma once

#include <string>
#include <string_view>

#include "common/result.h"
#include "common/rfc3339.h"
#include "quota/accounting.h"

namespace gpugate::quota {

class UsageRecorder {
 public:
  virtual ~UsageRecorder() = default;
  // `charge` started holding its devices at *charge.started (set); told again, with its
  // release time, when a started charge is given one.
  virtual void Started(const Charge& charge) = 0;
  // `charge` (charge.started set) stopped counting at `endedAt`: its usage is
  // [started, endedAt), or nothing when endedAt is not after started.
  virtual void Ended(const Charge& charge, WallClock::time_point endedAt) = 0;
  // Everything recorded of ended charges, to be stored by a compaction.
  virtual std::string Snapshot() const = 0;
  // Replaces everything recorded with a Snapshot(); an error fails the ledger's Open.
  virtual Status Restore(std::string_view snapshot) = 0;
};

}  // namespace gpugate::quota
