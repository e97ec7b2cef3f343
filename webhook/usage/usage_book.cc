#include "usage/usage_book.h"

#include <algorithm>
#include <string>

#include "usage/book_codec.h"

namespace gpugate::usage {

using std::chrono::days;
using std::chrono::seconds;

void ForEachDay(const TimeZone& zone, Span span,
                const std::function<void(local_days, seconds)>& each) {
  if (span.to <= span.from) return;
  local_days day = zone.DayOf(span.from);
  sys_seconds start = zone.StartOf(day);
  while (start < span.to) {
    sys_seconds end = zone.StartOf(day + days(1));
    seconds in = Overlap(span, {start, end});
    if (in > seconds(0)) each(day, in);
    day += days(1);
    start = end;
  }
}

UsageBook::UsageBook(TimeZone zone, BookOptions options)
    : zone_(std::move(zone)),
      options_(options),
      exactSince_(options.exactWindow > seconds(0) ? sys_seconds::min() : sys_seconds::max()),
      historyStart_(local_days::min()) {
  Resize();
}

// Adds one accrual to a copy of its key's usage; the caller commits or drops the copy.
Status UsageBook::Add(KeyUsage& usage, const Accrual& a) const {
  if (a.milli < 0) return Fail("a negative amount (" + std::to_string(a.milli) + ")");
  if (a.milli > 1'000'000'000) return Fail("more than a million units held");
  if (a.held.to < a.held.from) return Fail("an interval that ends before it starts");
  // Bounds on the calendar arithmetic, far beyond any pod: 1970 to 2200, ten years at most.
  using std::chrono::sys_days;
  if (a.held.from < sys_days{std::chrono::year{1970} / 1 / 1} ||
      a.held.to > sys_days{std::chrono::year{2200} / 1 / 1} ||
      a.held.to - a.held.from > days(3653)) {
    return Fail("an interval outside 1970-2200 or longer than ten years");
  }
  if (a.milli == 0 || a.held.to == a.held.from) return {};
  Status st;
  ForEachDay(zone_, a.held, [&](local_days day, seconds in) {
    if (!st || day < historyStart_) return;
    int64_t add = 0;
    if (__builtin_mul_overflow(a.milli, in.count(), &add)) {
      st = Fail("GPU-time past the book's range");
      return;
    }
    if (usage.days.empty()) usage.first = day;
    if (day < usage.first) {
      usage.days.insert(usage.days.begin(), static_cast<size_t>((usage.first - day).count()), 0);
      usage.first = day;
    }
    size_t i = static_cast<size_t>((day - usage.first).count());
    if (i >= usage.days.size()) usage.days.resize(i + 1, 0);
    if (__builtin_add_overflow(usage.days[i], add, &usage.days[i])) {
      st = Fail("GPU-time past the book's range");
    }
  });
  if (!st) return st;
  if (a.held.to > exactSince_ && exactSince_ != sys_seconds::max()) {
    usage.recent.push_back({a.held, a.milli});
  }
  return {};
}

Status UsageBook::Accrue(std::span<const Accrual> accruals) {
  std::map<UsageKey, KeyUsage> staged;
  for (const Accrual& a : accruals) {
    auto [it, fresh] = staged.try_emplace(a.key);
    if (fresh) {
      auto old = keys_.find(a.key);
      if (old != keys_.end()) it->second = old->second;
    }
    if (Status st = Add(it->second, a); !st) {
      return Fail("usage of " + a.key.ns + "/" + a.key.resource +
                  " not recorded: " + st.error().message);
    }
  }
  std::erase_if(staged, [&](const auto& entry) {  // accruals of nothing add no key
    return entry.second.days.empty() && entry.second.recent.empty() && !keys_.contains(entry.first);
  });
  // The encoded size with the staged keys in place of the old ones.
  size_t size = encodedSize_;
  std::map<UsageKey, size_t> stagedBytes;
  size_t count = keyBytes_.size();
  for (const auto& [key, usage] : staged) {
    auto old = keyBytes_.find(key);
    size_t bytes = EncodedKeyBytes(key, usage);
    size = size - (old == keyBytes_.end() ? 0 : old->second) + bytes;
    if (old == keyBytes_.end() && count++ > 0) ++size;  // the comma before it
    stagedBytes[key] = bytes;
  }
  if (size > options_.maxBytes) {
    return Fail("usage not recorded: the usage record would grow to " + std::to_string(size) +
                " bytes, past its limit of " + std::to_string(options_.maxBytes) + " bytes");
  }
  for (auto& [key, usage] : staged) keys_[key] = std::move(usage);
  for (const auto& [key, bytes] : stagedBytes) keyBytes_[key] = bytes;
  Resize();  // new keys add a comma each
  return {};
}

void UsageBook::Prune(sys_seconds now) {
  using namespace std::chrono;
  year_month_day today{zone_.DayOf(now)};
  year_month first = year_month{today.year(), today.month()} - months(options_.historyMonths - 1);
  historyStart_ = std::max(historyStart_, local_days{first / 1});
  if (options_.exactWindow <= seconds(0)) {
    exactSince_ = sys_seconds::max();
  } else if (exactSince_ == sys_seconds::max()) {
    exactSince_ = now;  // intervals were not kept until now
  } else {
    exactSince_ = std::max(exactSince_, now - options_.exactWindow);
  }
  for (auto it = keys_.begin(); it != keys_.end();) {
    KeyUsage& u = it->second;
    if (u.first < historyStart_) {
      size_t drop = std::min(u.days.size(), static_cast<size_t>((historyStart_ - u.first).count()));
      u.days.erase(u.days.begin(), u.days.begin() + static_cast<ptrdiff_t>(drop));
      u.first = historyStart_;
    }
    while (!u.days.empty() && u.days.front() == 0) {
      u.days.erase(u.days.begin());
      u.first += days(1);
    }
    std::erase_if(u.recent, [&](const Interval& i) { return i.held.to <= exactSince_; });
    if (u.days.empty() && u.recent.empty()) {
      keyBytes_.erase(it->first);
      it = keys_.erase(it);
      continue;
    }
    keyBytes_[it->first] = EncodedKeyBytes(it->first, u);
    ++it;
  }
  Resize();
}

void UsageBook::Resize() {
  size_t size = EncodedFrameBytes(*this);
  for (const auto& [key, bytes] : keyBytes_) size += bytes;
  if (keyBytes_.size() > 1) size += keyBytes_.size() - 1;  // the commas between keys
  encodedSize_ = size;
}

Span UsageBook::Counted(Span span) const {
  if (span.from >= exactSince_) return span;
  local_days first = zone_.DayOf(span.from);
  if (zone_.StartOf(first) < span.from) first += days(1);
  return {std::min(std::max(span.from, zone_.StartOf(first)), span.to), span.to};
}

std::map<UsageKey, int64_t> UsageBook::Totals(Span span) const {
  std::map<UsageKey, int64_t> out;
  if (span.from >= exactSince_) {
    for (const auto& [key, usage] : keys_) {
      for (const Interval& i : usage.recent) {
        int64_t add = i.milli * Overlap(i.held, span).count();
        if (add > 0) out[key] += add;
      }
    }
    return out;
  }
  for (const auto& [day, amounts] : DailyTotals(Counted(span))) {
    out[day.second] += amounts;
  }
  return out;
}

std::map<std::pair<local_days, UsageKey>, int64_t> UsageBook::DailyTotals(Span span) const {
  std::map<std::pair<local_days, UsageKey>, int64_t> out;
  if (span.to <= span.from) return out;
  local_days first = zone_.DayOf(span.from);
  if (zone_.StartOf(first) < span.from) first += days(1);
  local_days last = zone_.DayOf(span.to - seconds(1));  // the last day that begins before `to`
  for (const auto& [key, usage] : keys_) {
    for (size_t i = 0; i < usage.days.size(); ++i) {
      local_days day = usage.first + days(static_cast<int64_t>(i));
      if (day < first || day > last || usage.days[i] == 0) continue;
      out[{day, key}] = usage.days[i];
    }
  }
  return out;
}

}  // namespace gpugate::usage
