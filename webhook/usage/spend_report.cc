#include "usage/spend_report.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>
#include <utility>

#include "common/text_table.h"
#include "quota/amounts.h"
#include "usage/budget.h"

namespace gpugate::usage {
namespace {

using Json = nlohmann::ordered_json;

// Milli-GPU-seconds as a JSON number of GPU-hours to the thousandth, rounded down.
double GpuHours(int64_t milliGpuSeconds) {
  return static_cast<double>(milliGpuSeconds / 3600) / 1000;
}

// A JSON number of GPU-hours back to milli-GPU-seconds (exact for thousandths).
Result<int64_t> MilliGpuSeconds(const Json& v, const std::string& path) {
  if (!v.is_number() || v.get<double>() < 0) return Fail(path + ": must be a number >= 0");
  return static_cast<int64_t>(v.get<double>() * 1000 + 0.5) * 3600;
}

}  // namespace

std::vector<SpendRow> SpendRows(std::span<const BudgetStanding> standings, const UsageReport& month,
                                std::string_view only) {
  std::vector<SpendRow> rows;
  std::set<std::pair<std::string, std::string>> monthlyBudgets;  // (namespace, limit)
  for (const BudgetStanding& s : standings) {
    if (!only.empty() && s.ns != only) continue;
    rows.push_back({s.ns, s.limit, s.period, s.spentMilliGpuSeconds, s.limitMilliGpuHours});
    if (s.period == "month") monthlyBudgets.insert({s.ns, s.limit});
  }
  for (const ReportRow& r : month.rows) {
    if (!only.empty() && r.ns != only) continue;
    if (monthlyBudgets.count({r.ns, r.resource})) continue;
    rows.push_back({r.ns, r.resource, "month", r.milliGpuSeconds, std::nullopt});
  }
  std::sort(rows.begin(), rows.end(), [](const SpendRow& a, const SpendRow& b) {
    return std::tie(a.ns, a.limit, a.period) < std::tie(b.ns, b.limit, b.period);
  });
  return rows;
}

std::string WithSpendJson(std::string quotaJson, std::span<const SpendRow> rows) {
  if (rows.empty() || !quotaJson.ends_with('}')) return quotaJson;
  Json spend = Json::array();
  for (const SpendRow& r : rows) {
    Json row = {{"namespace", r.ns},
                {"limit", r.limit},
                {"period", r.period},
                {"spentGpuHours", GpuHours(r.spentMilliGpuSeconds)}};
    if (r.budgetMilliGpuHours) {
      row["budgetGpuHours"] = static_cast<double>(*r.budgetMilliGpuHours) / 1000;
    }
    spend.push_back(std::move(row));
  }
  quotaJson.pop_back();
  return quotaJson + ",\"spend\":" + spend.dump() + "}";
}

Result<std::vector<SpendRow>> ParseSpendJson(std::string_view quotaJson) {
  Json doc = Json::parse(quotaJson, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) return Fail("not a JSON object");
  std::vector<SpendRow> rows;
  if (!doc.contains("spend")) return rows;
  if (!doc["spend"].is_array()) return Fail("spend: must be a list");
  for (size_t i = 0; i < doc["spend"].size(); ++i) {
    const Json& r = doc["spend"][i];
    const std::string at = "spend[" + std::to_string(i) + "]";
    if (!r.is_object()) return Fail(at + ": must be an object");
    SpendRow row;
    for (auto [name, field] : {std::pair{"namespace", &row.ns}, std::pair{"limit", &row.limit},
                               std::pair{"period", &row.period}}) {
      if (!r.contains(name) || !r[name].is_string()) {
        return Fail(at + "." + name + ": must be a string");
      }
      *field = r[name].get<std::string>();
    }
    auto spent = MilliGpuSeconds(r.value("spentGpuHours", Json()), at + ".spentGpuHours");
    if (!spent) return std::unexpected(spent.error());
    row.spentMilliGpuSeconds = *spent;
    if (r.contains("budgetGpuHours")) {
      auto budget = MilliGpuSeconds(r["budgetGpuHours"], at + ".budgetGpuHours");
      if (!budget) return std::unexpected(budget.error());
      row.budgetMilliGpuHours = *budget / 3600;
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string SpendTable(std::span<const SpendRow> rows) {
  if (rows.empty()) return "";
  std::vector<std::vector<std::string>> cells;
  for (const SpendRow& r : rows) {
    std::string budget = "-", percent = "-";
    if (r.budgetMilliGpuHours) {
      budget = quota::FormatMilli(*r.budgetMilliGpuHours);
      // Whole percent, rounded down, as the budget's warning counts it (budget.h).
      if (*r.budgetMilliGpuHours > 0) {
        const __int128 limit = static_cast<__int128>(*r.budgetMilliGpuHours) * 3600;
        percent =
            std::to_string(static_cast<int64_t>(r.spentMilliGpuSeconds * __int128{100} / limit)) +
            "%";
      }
    }
    cells.push_back(
        {r.ns, r.limit, r.period, FormatGpuHours(r.spentMilliGpuSeconds), budget, percent});
  }
  return RenderTable({"NAMESPACE", "SPENT ON", "PERIOD", "GPU-HOURS", "BUDGET", "SPENT%"}, cells);
}

}  // namespace gpugate::usage
