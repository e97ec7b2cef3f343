#include "usage/report_chart.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "usage/budget.h"
#include "usage/civil_date.h"

namespace gpugate::usage {
namespace {

using std::chrono::days;

// Layout, in SVG user units.
constexpr double kLeft = 70, kTop = 40, kPlotHeight = 240, kBarStep = 18, kBarWidth = 14;
constexpr double kLegendWidth = 180;
constexpr const char* kPalette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                    "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};

std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

// Text content and attribute values: names are DNS labels and resource names, but the
// renderer does not rely on it.
std::string Escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// A round axis maximum at or above `v` GPU-hours: 1, 2 or 5 times a power of ten.
double AxisMax(double v) {
  double step = 1;
  while (step * 10 <= v) step *= 10;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (step * m >= v) return step * m;
  }
  return step * 10;
}

// day -> namespace -> milli-GPU-seconds.
using Bars = std::map<std::string, std::map<std::string, int64_t>>;

// The y axis: five ticks from 0 to axisMax GPU-hours, with grid lines and its label.
std::string AxisSvg(double axisMax, double plotWidth) {
  std::string svg;
  double base = kTop + kPlotHeight;
  for (int i = 0; i <= 5; ++i) {
    double y = base - kPlotHeight * i / 5;
    svg += "<line x1=\"" + Num(kLeft) + "\" y1=\"" + Num(y) + "\" x2=\"" + Num(kLeft + plotWidth) +
           "\" y2=\"" + Num(y) + "\" stroke=\"#dddddd\"/>\n";
    svg += "<text x=\"" + Num(kLeft - 6) + "\" y=\"" + Num(y + 4) + "\" text-anchor=\"end\">" +
           quota::FormatMilli(static_cast<int64_t>(axisMax * 1000) * i / 5) + "</text>\n";
  }
  svg += "<text x=\"14\" y=\"" + Num(kTop + kPlotHeight / 2) + "\" transform=\"rotate(-90 14 " +
         Num(kTop + kPlotHeight / 2) + ")\" text-anchor=\"middle\">GPU-hours</text>\n";
  svg += "<line x1=\"" + Num(kLeft) + "\" y1=\"" + Num(base) + "\" x2=\"" + Num(kLeft + plotWidth) +
         "\" y2=\"" + Num(base) + "\" stroke=\"#333333\"/>\n";
  svg += "<text x=\"" + Num(kLeft + plotWidth / 2) + "\" y=\"" + Num(base + 34) +
         "\" text-anchor=\"middle\">day</text>\n";
  return svg;
}

// One labelled slot per day; its stack of segments, each carrying its figures.
std::string BarsSvg(const UsageReport& r, int64_t dayCount, const Bars& bars,
                    const std::map<std::string, std::string>& colors, double axisMax) {
  std::string svg;
  double base = kTop + kPlotHeight;
  for (int64_t d = 0; d < dayCount; ++d) {
    std::string date = FormatDate(r.first + days(d));
    double x = kLeft + static_cast<double>(d) * kBarStep + (kBarStep - kBarWidth) / 2;
    svg += "<text x=\"" + Num(x + kBarWidth / 2) + "\" y=\"" + Num(base + 14) +
           "\" text-anchor=\"middle\">" + date.substr(8) + "</text>\n";
    auto stack = bars.find(date);
    if (stack == bars.end()) continue;
    double y = base;
    for (const auto& [ns, milli] : stack->second) {
      double h = kPlotHeight * (static_cast<double>(milli) / kMilliGpuSecondsPerHour) / axisMax;
      y -= h;
      svg += "<rect x=\"" + Num(x) + "\" y=\"" + Num(y) + "\" width=\"" + Num(kBarWidth) +
             "\" height=\"" + Num(h) + "\" fill=\"" + colors.at(ns) + "\" data-day=\"" + date +
             "\" data-namespace=\"" + Escape(ns) + "\" data-gpu-hours=\"" + FormatGpuHours(milli) +
             "\"><title>" + date + " " + Escape(ns) + ": " + FormatGpuHours(milli) +
             " GPU-hours</title></rect>\n";
    }
  }
  return svg;
}

std::string LegendSvg(const std::map<std::string, std::string>& colors, double x) {
  std::string svg;
  double y = kTop;
  for (const auto& [ns, color] : colors) {
    svg += "<rect x=\"" + Num(x) + "\" y=\"" + Num(y) + "\" width=\"10\" height=\"10\" fill=\"" +
           color + "\"/>\n<text x=\"" + Num(x + 16) + "\" y=\"" + Num(y + 9) + "\">" + Escape(ns) +
           "</text>\n";
    y += 16;
  }
  return svg;
}

}  // namespace

Result<std::string> RenderDailyChart(const UsageReport& r, std::string_view resource) {
  if (r.by != GroupBy::kDay) return Fail("a chart is drawn from a report grouped by day");
  int64_t dayCount = (r.last - r.first).count() + 1;
  if (dayCount < 1 || dayCount > 62) return Fail("a chart covers at most 62 days");
  Bars bars;
  std::map<std::string, std::string> colors;  // namespace -> fill, in name order
  for (const ReportRow& row : r.rows) {
    if (row.resource != resource) continue;
    bars[row.day][row.ns] += row.milliGpuSeconds;
    colors[row.ns];
  }
  size_t next = 0;
  for (auto& [ns, color] : colors) color = kPalette[next++ % std::size(kPalette)];
  int64_t peak = 0;
  for (const auto& [day, stack] : bars) {
    int64_t total = 0;
    for (const auto& [ns, v] : stack) total += v;
    peak = std::max(peak, total);
  }
  double axisMax = AxisMax(std::max(1.0, static_cast<double>(peak) / kMilliGpuSecondsPerHour));
  double plotWidth = static_cast<double>(dayCount) * kBarStep;
  std::string title = "GPU-hours per day by namespace: " + std::string(resource) + ", " +
                      FormatDate(r.first) + " to " + FormatDate(r.last) + " (" + r.timeZone + ")";
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
         "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
         Num(kLeft + plotWidth + 20 + kLegendWidth) + "\" height=\"" +
         Num(kTop + kPlotHeight + 50) + "\" font-family=\"sans-serif\" font-size=\"11\">\n" +
         "<title>" + Escape(title) + "</title>\n<text x=\"" + Num(kLeft) +
         "\" y=\"20\" font-size=\"13\">" + Escape(title) + "</text>\n" +
         AxisSvg(axisMax, plotWidth) + BarsSvg(r, dayCount, bars, colors, axisMax) +
         LegendSvg(colors, kLeft + plotWidth + 20) + "</svg>\n";
}

}  // namespace gpugate::usage
