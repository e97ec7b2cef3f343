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

UsageReport BuildReport(const UsageBook& book, std::span<const Accrual> running,
                        const ReportQuery& query) {
  const TimeZone& zone = book.zone();
  Span span = {zone.StartOf(query.first), zone.StartOf(query.last + days(1))};
  auto daily = DailySpent(book, running, span);
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
      .timeZone = zone.name(), .first = query.first, .last = query.last, .by = query.by};
  for (const auto& [cols, milli] : sums) {
    if (milli == 0) continue;
    const auto& [day, ns, model, resource] = cols;
    report.rows.push_back({day, ns, model, resource, milli});
  }
  return report;
}

}  // namespace gpugate::usage
