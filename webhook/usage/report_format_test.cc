#include "usage/report_format.h"

#include <gtest/gtest.h>

#include "usage/report_chart.h"
#include "usage/report_render.h"

namespace gpugate::usage {
namespace {

// "svg nvidia.com/gpu by day" or "error: ...": the output chosen and the grouping it leaves.
std::string Chosen(std::optional<std::string> format, std::optional<std::string> resource,
                   std::optional<GroupBy> by) {
  ReportQuery query = *QueryForMonth("2026-11");
  if (by) query.by = *by;
  Result<ReportOutput> out = OutputFrom(format, resource, by.has_value(), query);
  if (!out) return "error: " + out.error().message;
  const char* names[] = {"json", "table", "csv", "svg"};
  std::string s = names[static_cast<int>(out->format)];
  if (out->format == ReportFormat::kSvg) s += " " + out->chartResource;
  return s + " by " + std::string(GroupByName(query.by));
}

TEST(ReportFormat, ParametersChooseTheOutput) {
  const struct {
    std::optional<std::string> format, resource;
    std::optional<GroupBy> by;
    std::string want;
  } kCases[] = {
      {{}, {}, {}, "json by namespace"},
      {"table", {}, GroupBy::kModel, "table by model"},
      {"csv", {}, GroupBy::kDay, "csv by day"},
      {"svg", {}, {}, "svg nvidia.com/gpu by day"},
      {"svg", "gpu-equivalents", GroupBy::kDay, "svg gpu-equivalents by day"},
      {"yaml", {}, {}, "error: format: must be json, table, csv or svg"},
      {"svg",
       {},
       GroupBy::kNamespace,
       "error: by: a chart (format svg) draws GPU-hours per day; give by=day or leave it out"},
      {"table",
       "nvidia.com/gpu",
       {},
       "error: resource: only a chart (format svg) draws one resource"},
      {"svg", "", {}, "error: resource: must name a resource, got \"\""},
  };
  for (const auto& c : kCases) {
    EXPECT_EQ(Chosen(c.format, c.resource, c.by), c.want)
        << c.format.value_or("-") << " " << c.resource.value_or("-");
  }
}

UsageReport Sample(GroupBy by) {
  UsageReport r{.timeZone = "UTC", .by = by};
  r.first = QueryForMonth("2026-11")->first;
  r.last = r.first + std::chrono::days(2);
  r.rows = {{.day = by == GroupBy::kDay ? "2026-11-02" : "",
             .ns = "team-a",
             .resource = "nvidia.com/gpu",
             .milliGpuSeconds = 5'400'000}};
  return r;
}

TEST(ReportFormat, EachFormatIsTheRenderersOwnOutput) {
  const UsageReport byNs = Sample(GroupBy::kNamespace), byDay = Sample(GroupBy::kDay);
  const struct {
    ReportFormat format;
    const UsageReport& report;
    std::string body, type;
  } kCases[] = {
      {ReportFormat::kJson, byNs, RenderReportJson(byNs), "application/json"},
      {ReportFormat::kTable, byNs, RenderReportTable(byNs), "text/plain; charset=utf-8"},
      {ReportFormat::kCsv, byNs, RenderReportCsv(byNs), "text/csv; charset=utf-8"},
      {ReportFormat::kSvg, byDay, *RenderDailyChart(byDay, "nvidia.com/gpu"), "image/svg+xml"},
  };
  for (const auto& c : kCases) {
    Result<RenderedReport> got = RenderReportAs(c.report, {.format = c.format});
    ASSERT_TRUE(got.has_value()) << got.error().message;
    EXPECT_EQ(got->body, c.body);
    EXPECT_EQ(got->contentType, c.type);
  }
  EXPECT_NE(
      RenderReportAs(byDay, {.format = ReportFormat::kSvg})->body.find("data-gpu-hours=\"1.5\""),
      std::string::npos);
  // A chart of a report by namespace, or of a year, is refused with the renderer's reason.
  Result<RenderedReport> refused = RenderReportAs(byNs, {.format = ReportFormat::kSvg});
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().message, "format: svg: a chart is drawn from a report grouped by day");
  UsageReport year = byDay;
  year.last = year.first + std::chrono::days(365);
  EXPECT_EQ(RenderReportAs(year, {.format = ReportFormat::kSvg}).error().message,
            "format: svg: a chart covers at most 62 days");
}

}  // namespace
}  // namespace gpugate::usage
