// The usage book a GPUQuota record carries in status.usage, and the accrual of the charges a
// write drops (docs/quota.md, "GPU-hour budgets and usage").
//
// Exactly once: a charge's usage enters the book in the same resourceVersion-guarded write that
// removes the charge from status.charges, and only a write that removes it accrues it. A write
// that loses a race (409) is redone from the fresh record; if another replica has dropped the
// charge meanwhile, it accrued it in that write, and the redo finds nothing to drop and accrues
// nothing. A restart or a relist reads the records as stored, so it neither loses a finished pod
// (its usage is in the book) nor counts one twice (its charge is gone).
//
// Pure: every function here maps values to values, so the edges are tested as tables.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cluster/cluster_cache.h"
#include "cluster/gpu_quota_record.h"
#include "common/time_zone.h"
#include "usage/budget.h"
#include "usage/usage_book.h"

namespace gpugate::cluster {

// How the records' books are kept: the config's usage section (usage.timeZone, historyMonths,
// maxRecordBytes in options.maxBytes, the exact window of its budgets).
struct BookSettings {
  TimeZone zone = TimeZone::Utc();
  usage::BookOptions options;
};

// The settings of the config's usage section: its time zone (an unknown one is an error, naming
// usage.timeZone) and usage::BookOptionsFor's options.
Result<BookSettings> BookSettingsFor(const usage::UsageConfig& config);

// When a charged pod held its devices (docs/quota.md, "When a pod starts and stops"), given the
// watch's view of it (`pod`: same name and uid, or null when the watch does not show it):
//   1. start: the charge's recorded start, else the pod's status.startTime in the watch; with
//      neither, the pod never ran and holds nothing (nullopt);
//   2. end: the pod's end in the watch (PodInfo::ended: its finish, or when it was seen gone or
//      its deletionTimestamp + grace, whichever is earlier), else its releaseAt if that has
//      passed, else `now` (the final DELETE, or a pod seen gone without an event);
//   3. never after `now`, and never before the start (an empty span: nothing accrued).
std::optional<usage::Span> HeldSpan(const RecordedCharge& charge, const PodInfo* pod,
                                    WallClock::time_point now);

// A charge a write removes, under its pod's name.
struct DroppedCharge {
  std::string pod;
  RecordedCharge charge;
};

// The charges `before` holds (by name and uid) that `after` does not.
std::vector<DroppedCharge> Dropped(const ChargeMap& before, const ChargeMap& after);

// Accrues the usage of `dropped` into `record.usage`, the write that drops them:
//   1. nothing dropped: the record is left as it is (a write that drops nothing never touches
//      the book);
//   2. the stored book is decoded (absent: an empty book) in `settings`; one that cannot be
//      (another time zone, malformed) is left as stored and nothing is accrued;
//   3. the book is pruned at `now`, and each dropped charge that held its devices (HeldSpan) is
//      accrued, each pod all or nothing, the book held within min(settings.options.maxBytes,
//      `maxBookBytes`); a pod the book refuses (its size bound) is left unrecorded;
//   4. the book is stored back, null when it holds nothing.
// Returns what went wrong, one message per pod or book, for the log; the charges are dropped
// whatever it says.
std::vector<std::string> AccrueDropped(GpuQuotaRecord& record,
                                       std::span<const DroppedCharge> dropped, const PodMap& pods,
                                       WallClock::time_point now, const BookSettings& settings,
                                       size_t maxBookBytes);

// The room left for `record`'s book under `maxRecordBytes` (the whole object's bound, as
// EncodeGpuQuota writes it with `name` and `hard`): the bound less the object without its book.
// SIZE_MAX when maxRecordBytes is 0 (no bound); 0 when the rest already fills it.
size_t BookRoom(const GpuQuotaRecord& record, std::string_view name, const quota::Amounts& hard,
                size_t maxRecordBytes);

}  // namespace gpugate::cluster
