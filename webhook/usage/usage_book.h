// The usage book: GPU-time of finished pods, as per-day totals in one time zone's local days,
// kept for a bounded history and a bounded encoded size (docs/quota.md, "GPU-hour budgets and
// usage").
//
// How a ledger uses it (the book itself knows nothing of pods, charges or storage):
//   1. At start-up, an empty book (UsageBook(zone, options)) or the stored one
//      (DecodeBook in book_codec.h).
//   2. When a pod's charge ends, in the same guarded write that releases the charge:
//        book.Prune(now);
//        Status st = book.Accrue(Accruals(ns, charge, {started, ended}));  // accruals.h
//        then store EncodeBook(book) with the release. A refused Accrue (the size bound, an
//        overflow) leaves the book unchanged; the caller logs it and releases anyway.
//      Exactly once is the caller's guard: the book adds whatever it is given.
//   3. Running pods never enter the book: at a budget check or a report, the caller passes them
//      as open intervals (spent.h), counted up to `now`.
//
// Not thread-safe: the owner serializes access (the ledger's lock).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <utility>
#include <vector>

#include "common/result.h"
#include "common/time_zone.h"
#include "usage/span.h"

namespace gpugate::usage {

using std::chrono::local_days;

// A pod's holding of one key: `milli` milli-units over `held`.
struct Accrual {
  UsageKey key;
  int64_t milli = 0;
  Span held;
};

// A finished interval kept whole for windows shorter than a day.
struct Interval {
  Span held;
  int64_t milli = 0;

  bool operator==(const Interval&) const = default;
};

// What the book keeps per key: milli-GPU-seconds per local day from `first` on (days[i] is day
// first + i), and the finished intervals that end after the book's exact horizon.
struct KeyUsage {
  local_days first{};
  std::vector<int64_t> days;
  std::vector<Interval> recent;
};

struct BookOptions {
  // Days kept: the current local month and the (historyMonths - 1) before it.
  int historyMonths = 13;
  // The longest rolling window shorter than a day (0: none): finished intervals are kept whole
  // this long, so such a window is counted to the second.
  std::chrono::seconds exactWindow{0};
  // The encoded form's bound, in bytes: an Accrue that would take it past this is refused.
  size_t maxBytes = 256 * 1024;
};

// Calls `each(day, seconds)` for every local day `span` touches, with the seconds of `span` in
// that day, in order. Days are as long as the zone makes them (23 h, 25 h).
void ForEachDay(const TimeZone& zone, Span span,
                const std::function<void(local_days, std::chrono::seconds)>& each);

class UsageBook {
 public:
  UsageBook(TimeZone zone, BookOptions options);

  // Adds every accrual, or none: an accrual with a negative amount or more than a million units,
  // an end before its start, an interval outside 1970-2200 or longer than ten years, a day total
  // that would overflow, or an encoded size past options.maxBytes is refused with the reason. Days
  // before the history's start (as of the last Prune) are not kept.
  Status Accrue(std::span<const Accrual> accruals);

  // Drops the days before the history's start for `now` and the intervals that ended before
  // now - exactWindow, and keys left with nothing.
  void Prune(sys_seconds now);

  // The span the book counts for `span`: `span` itself when it starts within the exact horizon
  // (every interval ending after span.from is kept), else whole local days: `span` with its
  // start moved up to the next local midnight (unless it is one), so a window of a day or more
  // counts the days that begin inside it (a shorter one may count nothing: configure
  // exactWindow for it).
  Span Counted(Span span) const;

  // Milli-GPU-seconds per key within Counted(span) (keys with 0 left out).
  std::map<UsageKey, int64_t> Totals(Span span) const;

  // Milli-GPU-seconds per (local day, key) for the local days that begin in `span`.
  std::map<std::pair<local_days, UsageKey>, int64_t> DailyTotals(Span span) const;

  // The exact length of EncodeBook(*this), kept up to date by every change.
  size_t EncodedSize() const { return encodedSize_; }

  const TimeZone& zone() const { return zone_; }
  const BookOptions& options() const { return options_; }
  const std::map<UsageKey, KeyUsage>& keys() const { return keys_; }
  // Intervals ending after this are all kept; sys_seconds::min() before the first prune that
  // dropped one, sys_seconds::max() when exactWindow is 0 (no intervals are kept).
  sys_seconds exactSince() const { return exactSince_; }
  // Days before this are not kept.
  local_days historyStart() const { return historyStart_; }

 private:
  friend class BookCodec;  // book_codec.cc: restores the fields as stored

  Status Add(KeyUsage& usage, const Accrual& accrual) const;
  void Resize();

  TimeZone zone_;
  BookOptions options_;
  std::map<UsageKey, KeyUsage> keys_;
  std::map<UsageKey, size_t> keyBytes_;  // each key's share of encodedSize_
  size_t encodedSize_ = 0;
  sys_seconds exactSince_;
  local_days historyStart_;
};

}  // namespace gpugate::usage
