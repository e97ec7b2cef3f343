// The one choice of how a usage report is written, shared by GET /usage (the `format` and
// `resource` parameters) and `gpugate usage` (-o, --chart), so the server and the command write
// the same bytes for the same report.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"
#include "usage/report.h"

namespace gpugate::usage {

enum class ReportFormat { kJson, kTable, kCsv, kSvg };

// "json", "table", "csv", "svg"; the error's message is the reason alone.
Result<ReportFormat> ParseReportFormat(std::string_view text);

// The resource a chart draws when none is named.
inline constexpr std::string_view kDefaultChartResource = "nvidia.com/gpu";

struct ReportOutput {
  ReportFormat format = ReportFormat::kJson;
  std::string chartResource{kDefaultChartResource};  // kSvg only
};

// The output `format` and `resource` ask for, for a report of `query`, in this order:
//   1. format: ParseReportFormat's names; default json;
//   2. svg draws GPU-hours per day (report_chart.h): `by` must be absent or day (`byGiven`
//      says whether the caller named one), and `query` is set to group by day;
//   3. resource: only with svg ("resource: only a chart (format svg) draws one resource").
// Errors name the parameter: "format: ...", "by: ...", "resource: ...".
Result<ReportOutput> OutputFrom(const std::optional<std::string>& format,
                                const std::optional<std::string>& resource, bool byGiven,
                                ReportQuery& query);

struct RenderedReport {
  std::string body;
  std::string_view contentType;  // a literal: "application/json", "text/csv; charset=utf-8", ...
};

// `report` as `output` says (report_render.h, report_chart.h). Only a chart can be refused
// (a report not by day, a span past 62 days): "format: svg: a chart covers at most 62 days".
Result<RenderedReport> RenderReportAs(const UsageReport& report, const ReportOutput& output);

}  // namespace gpugate::usage
