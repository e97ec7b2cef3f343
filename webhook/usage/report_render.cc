#include "usage/report_render.h"

#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "common/text_table.h"
#include "usage/budget.h"
#include "usage/civil_date.h"

namespace gpugate::usage {
namespace {

// The grouping's columns: (JSON and CSV name, table header, the row's field).
struct Column {
  const char* name;
  const char* header;
  std::string ReportRow::*field;
};

std::vector<Column> ColumnsOf(GroupBy by) {
  const Column day = {"day", "DAY", &ReportRow::day};
  const Column ns = {"namespace", "NAMESPACE", &ReportRow::ns};
  const Column model = {"model", "MODEL", &ReportRow::model};
  const Column resource = {"resource", "RESOURCE", &ReportRow::resource};
  switch (by) {
    case GroupBy::kNamespace:
      return {ns, resource};
    case GroupBy::kModel:
      return {model, resource};
    case GroupBy::kResource:
      return {resource};
    case GroupBy::kDay:
      break;
  }
  return {day, ns, resource};
}

std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

}  // namespace

std::string RenderReportTable(const UsageReport& report) {
  std::vector<Column> columns = ColumnsOf(report.by);
  std::vector<std::string> header;
  for (const Column& c : columns) header.push_back(c.header);
  header.push_back("GPU-HOURS");
  std::vector<std::vector<std::string>> rows;
  for (const ReportRow& row : report.rows) {
    std::vector<std::string> cells;
    for (const Column& c : columns) {
      const std::string& v = row.*c.field;
      cells.push_back(v.empty() ? "-" : v);
    }
    cells.push_back(FormatGpuHours(row.milliGpuSeconds));
    rows.push_back(std::move(cells));
  }
  return RenderTable(header, rows);
}

std::string RenderReportJson(const UsageReport& report) {
  using Json = nlohmann::ordered_json;
  Json rows = Json::array();
  for (const ReportRow& row : report.rows) {
    Json r = Json::object();
    for (const Column& c : ColumnsOf(report.by)) r[c.name] = row.*c.field;
    // Milli-GPU-hours as a decimal number: the double closest to it prints back the same digits.
    r["gpuHours"] = static_cast<double>(row.milliGpuSeconds / 3600) / 1000;
    r["gpuSeconds"] = row.milliGpuSeconds / 1000;
    rows.push_back(std::move(r));
  }
  Json out = {{"timeZone", report.timeZone},
              {"since", FormatDate(report.first)},
              {"until", FormatDate(report.last)},
              {"by", GroupByName(report.by)},
              {"rows", std::move(rows)}};
  return out.dump(2) + "\n";
}

std::string RenderReportCsv(const UsageReport& report) {
  std::vector<Column> columns = ColumnsOf(report.by);
  std::string out;
  for (const Column& c : columns) out += std::string(c.name) + ",";
  out += "gpuHours,gpuSeconds\r\n";
  for (const ReportRow& row : report.rows) {
    for (const Column& c : columns) out += CsvField(row.*c.field) + ",";
    out += FormatGpuHours(row.milliGpuSeconds) + "," + std::to_string(row.milliGpuSeconds / 1000) +
           "\r\n";
  }
  return out;
}

}  // namespace gpugate::usage
