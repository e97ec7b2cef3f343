// A usage report as `gpugate usage -o table|json|csv` writes it. Each shows the same rows and
// the same figures: GPU-hours to the thousandth, rounded down (FormatGpuHours).
#pragma once

#include <string>

#include "usage/report.h"

namespace gpugate::usage {

// kubectl-style columns: the grouping's columns, then GPU-HOURS. A model of "" shows as "-".
//   NAMESPACE   RESOURCE         GPU-HOURS
//   team-a      nvidia.com/gpu   1234.5
std::string RenderReportTable(const UsageReport& report);

// {"timeZone":"UTC","since":"2026-11-01","until":"2026-11-30","by":"namespace",
//  "rows":[{"namespace":"team-a","resource":"nvidia.com/gpu","gpuHours":1234.5,
//           "gpuSeconds":4444200}]}
// gpuSeconds is exact (whole seconds, rounded down); only the grouping's columns appear.
std::string RenderReportJson(const UsageReport& report);

// RFC 4180: a header line of the JSON's names, then one line per row, fields quoted only when
// they hold a comma, a quote or a line break.
std::string RenderReportCsv(const UsageReport& report);

}  // namespace gpugate::usage
