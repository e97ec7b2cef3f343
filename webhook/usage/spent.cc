#include "usage/spent.h"

namespace gpugate::usage {

std::map<UsageKey, int64_t> Spent(const UsageBook& book, std::span<const Accrual> running,
                                  Span span) {
  std::map<UsageKey, int64_t> out = book.Totals(span);
  Span counted = book.Counted(span);
  for (const Accrual& a : running) {
    int64_t add = a.milli * Overlap(a.held, counted).count();
    if (add > 0) out[a.key] += add;
  }
  return out;
}

std::map<std::pair<local_days, UsageKey>, int64_t> DailySpent(const UsageBook& book,
                                                              std::span<const Accrual> running,
                                                              Span span) {
  auto out = book.DailyTotals(span);
  const TimeZone& zone = book.zone();
  local_days first = zone.DayOf(span.from);
  if (zone.StartOf(first) < span.from) first += std::chrono::days(1);
  Span days = {zone.StartOf(first), span.to};
  for (const Accrual& a : running) {
    Span in = {std::max(a.held.from, days.from), std::min(a.held.to, days.to)};
    ForEachDay(zone, in, [&](local_days day, std::chrono::seconds s) {
      out[{day, a.key}] += a.milli * s.count();
    });
  }
  return out;
}

int64_t SpentOn(const std::map<UsageKey, int64_t>& spent, std::string_view ns,
                std::string_view limit) {
  std::string_view resource = limit, model;
  bool oneModel = false;
  if (size_t at = limit.rfind('@'); at != std::string_view::npos) {
    resource = limit.substr(0, at);
    model = limit.substr(at + 1);
    oneModel = true;
  }
  int64_t sum = 0;
  for (const auto& [key, milli] : spent) {
    if (key.ns == ns && key.resource == resource && (!oneModel || key.model == model)) {
      sum += milli;
    }
  }
  return sum;
}

}  // namespace gpugate::usage
