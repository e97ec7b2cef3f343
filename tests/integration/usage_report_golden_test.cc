// Golden outputs of usage reports: a worked month in Europe/Berlin (the month docs/quota.md walks
// through), rendered as a table, JSON and CSV per grouping, and as the SVG chart. The files are
// under tests/testdata/usage/; UPDATE_GOLDEN=1 rewrites them, and a file no case wrote fails.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "golden_files.h"
#include "test_paths.h"
#include "usage/accruals.h"
#include "usage/report_chart.h"
#include "usage/report_render.h"

namespace gpugate::usage {
namespace {

using namespace std::chrono;

sys_seconds At(const TimeZone& zone, int y, unsigned mo, unsigned d, int h = 0, int mi = 0) {
  return zone.FromLocal(local_days{year{y} / mo / d} + hours(h) + minutes(mi));
}

// November 2026 in Berlin. team-a trains on A100s (a 4-GPU job across the month's start, a
// 2-GPU job for a week), team-b runs shares of cards (vcuda-core, weighed as gpu-equivalents),
// team-c has a 1-GPU notebook still running at the report's time.
UsageReport Report(GroupBy by) {
  Result<TimeZone> berlin = TimeZone::Load("Europe/Berlin");
  EXPECT_TRUE(berlin.has_value());
  UsageBook book(*berlin, {});
  const quota::Amounts a100x4 = {{"nvidia.com/gpu", 4000},
                                 {"nvidia.com/gpu@a100", 4000},
                                 {"gpu-equivalents", 4000},
                                 {"gpu-equivalents@a100", 4000}};
  const quota::Amounts a100x2 = {{"nvidia.com/gpu", 2000},
                                 {"nvidia.com/gpu@a100", 2000},
                                 {"gpu-equivalents", 2000},
                                 {"gpu-equivalents@a100", 2000}};
  const quota::Amounts shares = {{"tencent.com/vcuda-core", 30'000}, {"gpu-equivalents", 300}};
  const quota::Amounts one = {{"nvidia.com/gpu", 1000}, {"gpu-equivalents", 1000}};
  for (const auto& [ns, charge, from, to] :
       {std::tuple{"team-a", a100x4, At(*berlin, 2026, 10, 30, 18), At(*berlin, 2026, 11, 2, 6)},
        std::tuple{"team-a", a100x2, At(*berlin, 2026, 11, 9, 9), At(*berlin, 2026, 11, 16, 9)},
        std::tuple{"team-b", shares, At(*berlin, 2026, 11, 3, 8), At(*berlin, 2026, 11, 3, 20)},
        std::tuple{"team-b", shares, At(*berlin, 2026, 11, 24, 8), At(*berlin, 2026, 11, 26, 8)}}) {
    EXPECT_TRUE(book.Accrue(Accruals(ns, charge, {from, to})).has_value());
  }
  auto running =
      Accruals("team-c", one, {At(*berlin, 2026, 11, 27, 9), At(*berlin, 2026, 11, 27, 21, 30)});
  ReportQuery query = *QueryForMonth("2026-11");
  query.by = by;
  return BuildReport(book, running, query);
}

TEST(UsageReportGolden, Renderings) {
  testing::GoldenFiles golden(std::filesystem::path(GPUGATE_SOURCE_DIR) / "tests" / "testdata" /
                              "usage");
  for (GroupBy by : {GroupBy::kNamespace, GroupBy::kModel, GroupBy::kResource, GroupBy::kDay}) {
    UsageReport report = Report(by);
    std::string name = "2026-11-by-" + std::string(GroupByName(by));
    golden.Compare(name + ".txt", RenderReportTable(report));
    golden.Compare(name + ".json", RenderReportJson(report));
    golden.Compare(name + ".csv", RenderReportCsv(report));
  }
  Result<std::string> svg = RenderDailyChart(Report(GroupBy::kDay), "nvidia.com/gpu");
  ASSERT_TRUE(svg.has_value()) << svg.error().message;
  golden.Compare("2026-11-nvidia.com-gpu.svg", *svg);
}

}  // namespace
}  // namespace gpugate::usage
