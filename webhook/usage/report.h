// Usage reports (`gpugate usage`): GPU-hours over whole local days, grouped by namespace, GPU
// model, resource or day, from the book plus the pods still running.
#pragma once

#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "usage/usage_book.h"

namespace gpugate::usage {

enum class GroupBy { kNamespace, kModel, kResource, kDay };

// "namespace", "model", "resource", "day"; the error's message is the reason alone.
Result<GroupBy> ParseGroupBy(std::string_view text);
std::string_view GroupByName(GroupBy by);

// The local days a report covers, both included, in the book's time zone.
struct ReportQuery {
  std::chrono::local_days first{};
  std::chrono::local_days last{};
  GroupBy by = GroupBy::kNamespace;
  std::vector<std::string> namespaces;  // only these; empty: every namespace
};

// --period 2026-11: the month's days.
Result<ReportQuery> QueryForMonth(std::string_view month);
// --since 2026-11-03 --until 2026-11-09: those days, both included; until before since is an
// error.
Result<ReportQuery> QueryForDates(std::string_view since, std::string_view until);

// One line of a report; only the grouping's columns are set. Resources and weighted figures are
// never summed together, so every grouping keeps the resource.
struct ReportRow {
  std::string day;    // "2026-11-03", by day
  std::string ns;     // by namespace and by day
  std::string model;  // by model ("" for pods not pinned to one model)
  std::string resource;
  int64_t milliGpuSeconds = 0;

  bool operator==(const ReportRow&) const = default;
};

struct UsageReport {
  std::string timeZone;
  std::chrono::local_days first{}, last{};
  GroupBy by = GroupBy::kNamespace;
  std::vector<ReportRow> rows;  // sorted by their columns, left to right; no row of 0
};

// The report of `query` over `book` and the `running` pods' accruals up to now (accruals.h).
UsageReport BuildReport(const UsageBook& book, std::span<const Accrual> running,
                        const ReportQuery& query);

// The report of `query` over several books, as cluster mode keeps them (one per namespace, in
// its GPUQuota object), and the `running` pods' accruals up to now, in `zone`: rows that
// several books share are added up. Every book must keep `zone`'s local days (a day total
// cannot be moved to another zone's days); one that does not is an error naming the
// namespaces and zones: "usage books in different time zones: team-a keeps Europe/Berlin,
// team-b keeps UTC; a report adds up the local days of one zone".
Result<UsageReport> BuildReportOfBooks(const TimeZone& zone, std::span<const UsageBook> books,
                                       std::span<const Accrual> running, const ReportQuery& query);

}  // namespace gpugate::usage
