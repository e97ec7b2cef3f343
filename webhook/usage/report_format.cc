#include "usage/report_format.h"

#include "usage/report_chart.h"
#include "usage/report_render.h"

namespace gpugate::usage {

Result<ReportFormat> ParseReportFormat(std::string_view text) {
  if (text == "json") return ReportFormat::kJson;
  if (text == "table") return ReportFormat::kTable;
  if (text == "csv") return ReportFormat::kCsv;
  if (text == "svg") return ReportFormat::kSvg;
  return Fail("must be json, table, csv or svg");
}

Result<ReportOutput> OutputFrom(const std::optional<std::string>& format,
                                const std::optional<std::string>& resource, bool byGiven,
                                ReportQuery& query) {
  ReportOutput output;
  if (format) {
    Result<ReportFormat> parsed = ParseReportFormat(*format);
    if (!parsed) return Fail("format: " + parsed.error().message);
    output.format = *parsed;
  }
  if (output.format != ReportFormat::kSvg) {
    if (resource) return Fail("resource: only a chart (format svg) draws one resource");
    return output;
  }
  if (byGiven && query.by != GroupBy::kDay) {
    return Fail("by: a chart (format svg) draws GPU-hours per day; give by=day or leave it out");
  }
  query.by = GroupBy::kDay;
  if (resource) {
    if (resource->empty()) return Fail("resource: must name a resource, got \"\"");
    output.chartResource = *resource;
  }
  return output;
}

Result<RenderedReport> RenderReportAs(const UsageReport& report, const ReportOutput& output) {
  switch (output.format) {
    case ReportFormat::kJson:
      return RenderedReport{RenderReportJson(report), "application/json"};
    case ReportFormat::kTable:
      return RenderedReport{RenderReportTable(report), "text/plain; charset=utf-8"};
    case ReportFormat::kCsv:
      return RenderedReport{RenderReportCsv(report), "text/csv; charset=utf-8"};
    case ReportFormat::kSvg:
      break;
  }
  Result<std::string> svg = RenderDailyChart(report, output.chartResource);
  if (!svg) return Fail("format: svg: " + svg.error().message);
  return RenderedReport{std::move(*svg), "image/svg+xml"};
}

}  // namespace gpugate::usage
