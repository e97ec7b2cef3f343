#include "usage/report.h"

#include <gtest/gtest.h>

#include "usage/accruals.h"
#include "usage/budget.h"
#include "usage/testing.h"

namespace gpugate::usage {
namespace {

using namespace testing;

std::string Rows(const UsageReport& r) {
  std::string out;
  for (const ReportRow& row : r.rows) {
    if (!out.empty()) out += "; ";
    for (const std::string* s : {&row.day, &row.ns, &row.model}) {
      if (!s->empty()) out += *s + " ";
    }
    if (r.by == GroupBy::kModel && row.model.empty()) out += "- ";
    out += row.resource + "=" + FormatGpuHours(row.milliGpuSeconds);
  }
  return out;
}

// November in Berlin: two finished pods, one across the month's start, and one still running.
UsageBook November() {
  TimeZone berlin = Zone("Europe/Berlin");
  UsageBook book(berlin, {});
  quota::Amounts a100 = {{"nvidia.com/gpu", 2000},
                         {"nvidia.com/gpu@a100", 2000},
                         {"gpu-equivalents", 2000},
                         {"gpu-equivalents@a100", 2000}};
  quota::Amounts shares = {{"tencent.com/vcuda-core", 50'000}, {"gpu-equivalents", 500}};
  auto a = Accruals("team-a", a100, {At(berlin, 2026, 10, 31, 20), At(berlin, 2026, 11, 1, 6)});
  auto b = Accruals("team-b", shares, {At(berlin, 2026, 11, 2, 9), At(berlin, 2026, 11, 2, 13)});
  EXPECT_TRUE(book.Accrue(a).has_value());
  EXPECT_TRUE(book.Accrue(b).has_value());
  return book;
}

std::vector<Accrual> Running() {
  TimeZone berlin = Zone("Europe/Berlin");
  return Accruals("team-b", {{"nvidia.com/gpu", 1000}},
                  {At(berlin, 2026, 11, 1, 22), At(berlin, 2026, 11, 2, 3)});
}

TEST(UsageReportTest, Groupings) {
  UsageBook book = November();
  auto running = Running();
  struct Case {
    GroupBy by;
    std::vector<std::string> namespaces;
    const char* want;
  } cases[] = {
      {GroupBy::kNamespace,
       {},
       "team-a gpu-equivalents=12; team-a nvidia.com/gpu=12; team-b gpu-equivalents=2; "
       "team-b nvidia.com/gpu=5; team-b tencent.com/vcuda-core=200"},
      {GroupBy::kModel,
       {},
       "- gpu-equivalents=2; - nvidia.com/gpu=5; - tencent.com/vcuda-core=200; "
       "a100 gpu-equivalents=12; a100 nvidia.com/gpu=12"},
      {GroupBy::kResource, {}, "gpu-equivalents=14; nvidia.com/gpu=17; tencent.com/vcuda-core=200"},
      {GroupBy::kDay,
       {"team-b"},
       "2026-11-01 team-b nvidia.com/gpu=2; 2026-11-02 team-b gpu-equivalents=2; "
       "2026-11-02 team-b nvidia.com/gpu=3; 2026-11-02 team-b tencent.com/vcuda-core=200"},
      {GroupBy::kNamespace, {"team-c"}, ""},
  };
  for (const Case& c : cases) {
    Result<ReportQuery> q = QueryForMonth("2026-11");
    ASSERT_TRUE(q.has_value());
    q->by = c.by;
    q->namespaces = c.namespaces;
    UsageReport r = BuildReport(book, running, *q);
    EXPECT_EQ(r.timeZone, "Europe/Berlin");
    EXPECT_EQ(Rows(r), c.want) << GroupByName(c.by);
  }
}

// October's report holds the part of the pod that ran in October, and only that.
TEST(UsageReportTest, SpansCutAtLocalMidnight) {
  UsageBook book = November();
  Result<ReportQuery> q = QueryForDates("2026-10-31", "2026-10-31");
  ASSERT_TRUE(q.has_value());
  EXPECT_EQ(Rows(BuildReport(book, {}, *q)), "team-a gpu-equivalents=8; team-a nvidia.com/gpu=8");
}

TEST(UsageReportTest, QueryErrors) {
  struct Case {
    Result<ReportQuery> query;
    const char* error;
  } cases[] = {
      {QueryForMonth("2026-13"), "expected a month such as 2026-11"},
      {QueryForMonth("november"), "expected a month such as 2026-11"},
      {QueryForDates("2026-11-31", "2026-12-01"), "since: no such day: 2026-11-31"},
      {QueryForDates("2026-11-01", "tomorrow"), "until: expected a date such as 2026-11-01"},
      {QueryForDates("2026-11-02", "2026-11-01"), "until 2026-11-01 is before since 2026-11-02"},
  };
  for (const Case& c : cases) {
    ASSERT_FALSE(c.query.has_value()) << c.error;
    EXPECT_EQ(c.query.error().message, c.error);
  }
  EXPECT_EQ(ParseGroupBy("user").error().message, "must be namespace, model, resource or day");
  for (const char* name : {"namespace", "model", "resource", "day"}) {
    EXPECT_EQ(GroupByName(*ParseGroupBy(name)), name);
  }
}

// Cluster mode keeps one book per namespace: their report is the one book holding both would
// give, for every grouping, running pods included (one in a namespace with no book yet).
TEST(UsageReportTest, SeveralBooksReportAsOne) {
  TimeZone berlin = Zone("Europe/Berlin");
  UsageBook whole = November();
  std::vector<UsageBook> books;
  for (const char* ns : {"team-a", "team-b"}) {
    UsageBook one(berlin, {});
    for (const auto& [key, usage] : whole.keys()) {
      if (key.ns != ns) continue;
      for (size_t i = 0; i < usage.days.size(); ++i) {
        // A day's total as one accrual of a second's worth at the day's noon.
        if (usage.days[i] == 0) continue;
        sys_seconds noon = berlin.StartOf(usage.first + days(static_cast<int64_t>(i))) + hours(12);
        ASSERT_TRUE(one.Accrue(std::vector<Accrual>{
                                   {.key = key, .milli = usage.days[i], .held = {noon, noon + 1s}}})
                        .has_value());
      }
    }
    books.push_back(std::move(one));
  }
  std::vector<Accrual> running = Running();
  auto notebook = Accruals("team-c", {{"nvidia.com/gpu", 1000}},
                           {At(berlin, 2026, 11, 2, 10), At(berlin, 2026, 11, 2, 12)});
  running.insert(running.end(), notebook.begin(), notebook.end());
  for (GroupBy by : {GroupBy::kNamespace, GroupBy::kModel, GroupBy::kResource, GroupBy::kDay}) {
    ReportQuery q = *QueryForMonth("2026-11");
    q.by = by;
    Result<UsageReport> merged = BuildReportOfBooks(berlin, books, running, q);
    ASSERT_TRUE(merged.has_value()) << merged.error().message;
    EXPECT_EQ(Rows(*merged), Rows(BuildReport(whole, running, q))) << GroupByName(by);
    EXPECT_EQ(merged->timeZone, "Europe/Berlin");
  }
  ReportQuery q = *QueryForMonth("2026-11");
  EXPECT_EQ(Rows(*BuildReportOfBooks(berlin, books, running, q)),
            "team-a gpu-equivalents=12; team-a nvidia.com/gpu=12; team-b gpu-equivalents=2; "
            "team-b nvidia.com/gpu=5; team-b tencent.com/vcuda-core=200; team-c nvidia.com/gpu=2");
  // No book at all: the running pods alone.
  EXPECT_EQ(Rows(*BuildReportOfBooks(berlin, {}, notebook, q)), "team-c nvidia.com/gpu=2");
}

TEST(UsageReportTest, BooksInDifferentZonesAreRefused) {
  std::vector<UsageBook> books;
  books.push_back(November());
  UsageBook utc(TimeZone::Utc(), {});
  ASSERT_TRUE(utc.Accrue(Accruals("team-z", {{"nvidia.com/gpu", 1000}},
                                  {Utc(2026, 11, 3, 8), Utc(2026, 11, 3, 9)}))
                  .has_value());
  books.push_back(std::move(utc));
  Result<UsageReport> r =
      BuildReportOfBooks(Zone("Europe/Berlin"), books, {}, *QueryForMonth("2026-11"));
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().message,
            "usage books in different time zones: team-a keeps Europe/Berlin, team-z keeps UTC; "
            "a report adds up the local days of one zone");
}

}  // namespace
}  // namespace gpugate::usage
