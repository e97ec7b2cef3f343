#include "usage/report.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "usage/civil_date.h"
#include "usage/spent.h"

namespace gpugate::usage {

using std::chrono::days;

Result<GroupBy> ParseGroupBy(std::string_view text) {
  for (GroupBy by : {GroupBy::kNamespace, GroupBy::kModel, GroupBy::kResource, GroupBy::kDay}) {
    if (GroupByName(by) == text) return by;
  }
  return Fail("must be namespace, model, resource or day");
}

std::string_view GroupByName(GroupBy by) {
  switch (by) {
    case GroupBy::kNamespace:
      return "namespace";
    case GroupBy::kModel:
      return "model";
    case GroupBy::kResource:
      return "resource";
    case GroupBy::kDay:
      break;
  }
  return "day";
}

Result<ReportQuery> QueryForMonth(std::string_view month) {
  Result<std::chrono::year_month> ym = ParseMonth(month);
  if (!ym) return Fail(ym.error().message);
  ReportQuery q;
  q.first = std::chrono::local_days{*ym / 1};
  q.last = std::chrono::local_days{*ym / std::chrono::last};
  return q;
}

Result<ReportQuery> QueryForDates(std::string_view since, std::string_view until) {
  Result<std::chrono::local_days> first = ParseDate(since), last = ParseDate(until);
  if (!first) return Fail("since: " + first.error().message);
  if (!last) return Fail("until: " + last.error().message);
  if (*last < *first)
    return Fail("until " + std::string(until) + " is before since " + std::string(since));
  ReportQuery q;
  q.first = *first;
  q.last = *last;
  return q;
}

namespace {

ReportRow RowFor(GroupBy by, std::chrono::local_days day, const UsageKey& key) {
  ReportRow row{.resource = key.resource};
  switch (by) {
    case GroupBy::kDay:
      row.day = FormatDate(day);
      row.ns = key.ns;
      break;
    case GroupBy::kNamespace:
      row.ns = key.ns;
      break;
    case GroupBy::kModel:
      row.model = key.model;
      break;
    case GroupBy::kResource:
      break;
  }
  return row;
}

}  // namespace

namespace {

using Daily = std::map<std::pair<std::chrono::local_days, UsageKey>, int64_t>;

// `daily` grouped as `query` asks, in `zoneName`.
UsageReport ReportOf(const std::string& zoneName, const Daily& daily, const ReportQuery& query) {
  std::map<std::tuple<std::string, std::string, std::string, std::string>, int64_t> sums;
  for (const auto& [dayKey, milli] : daily) {
    const auto& [day, key] = dayKey;
    const auto& wanted = query.namespaces;
    if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), key.ns) == wanted.end()) {
      continue;
    }
    ReportRow row = RowFor(query.by, day, key);
    sums[{row.day, row.ns, row.model, row.resource}] += milli;
  }
  UsageReport report{
      .timeZone = zoneName, .first = query.first, .last = query.last, .by = query.by};
  for (const auto& [cols, milli] : sums) {
    if (milli == 0) continue;
    const auto& [day, ns, model, resource] = cols;
    report.rows.push_back({day, ns, model, resource, milli});
  }
  return report;
}

Span SpanOf(const TimeZone& zone, const ReportQuery& query) {
  return {zone.StartOf(query.first), zone.StartOf(query.last + days(1))};
}

// "team-a" for a book whose keys name team-a; "a book with no usage" for an empty one.
std::string Owner(const UsageBook& book) {
  return book.keys().empty() ? "a book with no usage" : book.keys().begin()->first.ns;
}

}  // namespace

UsageReport BuildReport(const UsageBook& book, std::span<const Accrual> running,
                        const ReportQuery& query) {
  return ReportOf(book.zone().name(), DailySpent(book, running, SpanOf(book.zone(), query)), query);
}

Result<UsageReport> BuildReportOfBooks(const TimeZone& zone, std::span<const UsageBook> books,
                                       std::span<const Accrual> running, const ReportQuery& query) {
  for (const UsageBook& book : books) {
    if (book.zone().name() == zone.name()) continue;
    const UsageBook* same = nullptr;
    for (const UsageBook& other : books) {
      if (other.zone().name() == zone.name()) same = &other;
    }
    std::string kept = same ? Owner(*same) + " keeps " + zone.name() + ", " : "";
    return Fail("usage books in different time zones: " + kept + Owner(book) + " keeps " +
                book.zone().name() + "; a report adds up the local days of one zone");
  }
  const Span span = SpanOf(zone, query);
  Daily daily = DailySpent(UsageBook(zone, {}), running, span);
  for (const UsageBook& book : books) {
    for (const auto& [dayKey, milli] : book.DailyTotals(span)) daily[dayKey] += milli;
  }
  return ReportOf(zone.name(), daily, query);
}

}  // namespace gpugate::usage
