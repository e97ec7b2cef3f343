// UsageTable (declared in report.h): the table `gpugate quota` prints.
#include <algorithm>
#include <array>
#include <map>
#include <optional>

#include "common/text_table.h"
#include "quota/report.h"

namespace gpugate::quota {
namespace {

constexpr int kBarWidth = 20;
constexpr size_t kColumns = 5;  // NAMESPACE RESOURCE USED HARD USE%; the bar follows, unheaded

struct Row {
  std::array<std::string, kColumns> cells;
  std::string bar;
};

// Floor of used/hard in percent, and that share of kBarWidth (capped at a full bar). Floors, so
// 100% and a full bar mean the limit is reached, never "nearly".
std::pair<std::string, std::string> Gauge(int64_t used, std::optional<int64_t> hard) {
  if (!hard) return {"-", "-"};
  std::string percent;
  int filled = kBarWidth;
  if (*hard > 0) {
    auto ratio = [&](int64_t scale) {
      return static_cast<int64_t>(static_cast<__int128>(used) * scale / *hard);
    };
    percent = std::to_string(ratio(100)) + "%";
    filled = static_cast<int>(std::clamp<int64_t>(ratio(kBarWidth), 0, kBarWidth));
  } else {
    // A limit of zero: nothing may be used, so any use is over it by an unbounded factor.
    percent = used > 0 ? ">100%" : "0%";
    filled = used > 0 ? kBarWidth : 0;
  }
  return {percent, "[" + std::string(filled, '#') + std::string(kBarWidth - filled, '.') + "]"};
}

Row MakeRow(std::string ns, std::string resource, int64_t used, std::optional<int64_t> hard) {
  auto [percent, bar] = Gauge(used, hard);
  return Row{{std::move(ns), std::move(resource), FormatMilli(used),
              hard ? FormatMilli(*hard) : "-", percent},
             bar};
}

struct Total {
  int64_t used = 0;
  std::optional<int64_t> hard;  // sum over the namespaces that set a limit
  int64_t unlimitedUsed = 0;    // used in namespaces without a limit
};

// The TOTAL row. USE% compares all use with all limits, so it is shown only when every unit in
// use is under some limit; otherwise unlimited use would read as limits exceeded.
Row TotalRow(const std::string& resource, const Total& t) {
  Row row = MakeRow("TOTAL", resource, t.used, t.hard);
  if (t.unlimitedUsed > 0) row.cells[4] = row.bar = "-";
  return row;
}

// Rows per namespace and resource in sorted order, then one TOTAL row per resource. Namespace
// names are lowercase DNS labels, so "TOTAL" cannot be mistaken for one.
std::vector<Row> Rows(std::vector<NamespaceUsage> usage) {
  std::stable_sort(usage.begin(), usage.end(),
                   [](const NamespaceUsage& a, const NamespaceUsage& b) { return a.ns < b.ns; });
  std::vector<Row> rows;
  std::map<std::string, Total, std::less<>> totals;
  for (const NamespaceUsage& ns : usage) {
    for (const auto& [name, r] : ns.resources) {
      rows.push_back(MakeRow(ns.ns, name, r.used, r.hard));
      Total& t = totals[name];
      t.used += r.used;
      if (r.hard) {
        t.hard = t.hard.value_or(0) + *r.hard;
      } else {
        t.unlimitedUsed += r.used;
      }
    }
  }
  for (const auto& [name, t] : totals) rows.push_back(TotalRow(name, t));
  return rows;
}

}  // namespace

std::string UsageTable(const std::vector<NamespaceUsage>& usage) {
  std::vector<Row> rows = Rows(usage);
  std::vector<std::vector<std::string>> cells;
  for (Row& row : rows) {
    cells.emplace_back(row.cells.begin(), row.cells.end());
    cells.back().push_back(std::move(row.bar));
  }
  // The bar's column has no heading.
  std::string out = RenderTable({"NAMESPACE", "RESOURCE", "USED", "HARD", "USE%", ""}, cells);
  if (rows.empty()) out += "No GPU usage or limits.\n";
  return out;
}

}  // namespace gpugate::quota
