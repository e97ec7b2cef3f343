// `gpugate usage --chart FILE.svg`: GPU-hours per day by namespace, as stacked bars, drawn from
// a report grouped by day, so the chart shows the report's own figures.
#pragma once

#include <string>
#include <string_view>

#include "common/result.h"
#include "usage/report.h"

namespace gpugate::usage {

// An SVG document: one bar per day of the report's span (empty days drawn as gaps), stacked by
// namespace in name order, a y axis in GPU-hours with round ticks, the days under the bars, a
// legend and a title naming the resource, the span and the time zone. Every bar segment carries
// its figures (data-day, data-namespace, data-gpu-hours as the table writes them), so the chart
// can be checked against the report. Deterministic: the same report draws the same bytes.
// Refused: a report not grouped by day, or a span of more than 62 days (a month or two).
Result<std::string> RenderDailyChart(const UsageReport& byDay, std::string_view resource);

}  // namespace gpugate::usage
