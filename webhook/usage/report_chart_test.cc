#include "usage/report_chart.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "usage/accruals.h"
#include "usage/budget.h"
#include "usage/testing.h"

namespace gpugate::usage {
namespace {

using namespace testing;

using Attributes = std::map<std::string, std::string>;

// A small XML well-formedness check, enough for the SVG the chart writes: a declaration,
// elements properly nested, attributes quoted and unique, text and values free of '<' and of
// '&' outside the five predefined entities. Returns every element's name and attributes in
// document order, or the problem in `error`.
std::vector<std::pair<std::string, Attributes>> ParseXml(const std::string& doc,
                                                         std::string& error) {
  std::vector<std::pair<std::string, Attributes>> elements;
  std::vector<std::string> open;
  auto entitiesOk = [](std::string_view text) {
    for (size_t at = text.find('&'); at != std::string_view::npos; at = text.find('&', at + 1)) {
      std::string_view rest = text.substr(at);
      bool ok = false;
      for (const char* e : {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"}) ok |= rest.starts_with(e);
      if (!ok) return false;
    }
    return true;
  };
  size_t i = doc.starts_with("<?xml ") ? doc.find("?>") + 2 : 0;
  bool seenRoot = false;
  while (i < doc.size()) {
    size_t lt = doc.find('<', i);
    std::string text = doc.substr(i, lt == std::string::npos ? std::string::npos : lt - i);
    if (!entitiesOk(text)) return error = "bad entity in text: " + text, elements;
    if (open.empty() && text.find_first_not_of(" \n") != std::string::npos) {
      return error = "text outside the root", elements;
    }
    if (lt == std::string::npos) break;
    size_t gt = doc.find('>', lt);
    if (gt == std::string::npos) return error = "unclosed tag", elements;
    std::string tag = doc.substr(lt + 1, gt - lt - 1);
    i = gt + 1;
    if (tag.starts_with("/")) {
      if (open.empty() || open.back() != tag.substr(1))
        return error = "mismatched </" + tag, elements;
      open.pop_back();
      continue;
    }
    bool selfClosing = tag.ends_with("/");
    if (selfClosing) tag.pop_back();
    size_t sp = tag.find(' ');
    std::string name = tag.substr(0, sp);
    Attributes attrs;
    for (size_t p = sp == std::string::npos ? tag.size() : sp; p < tag.size();) {
      if (tag[p] == ' ' || tag[p] == '\n') {
        ++p;
        continue;
      }
      size_t eq = tag.find("=\"", p);
      std::string key = tag.substr(p, eq == std::string::npos ? eq : eq - p);
      size_t close = eq == std::string::npos ? eq : tag.find('"', eq + 2);
      if (close == std::string::npos || key.find_first_of(" =\"") != std::string::npos) {
        return error = "unquoted value in " + tag, elements;
      }
      std::string value = tag.substr(eq + 2, close - eq - 2);
      if (value.find('<') != std::string::npos || !entitiesOk(value) || attrs.contains(key)) {
        return error = "bad attribute " + key, elements;
      }
      attrs[key] = value;
      p = close + 1;
    }
    if (open.empty() && seenRoot) return error = "a second root", elements;
    seenRoot = true;
    elements.emplace_back(name, attrs);
    if (!selfClosing) open.push_back(name);
  }
  if (!open.empty()) error = "unclosed <" + open.back() + ">";
  return elements;
}

UsageReport ByDay() {
  UsageBook book(TimeZone::Utc(), {});
  quota::Amounts one = {{"nvidia.com/gpu", 1000}}, four = {{"nvidia.com/gpu", 4000}};
  for (auto [ns, charge, from, to] :
       {std::tuple{"team-a", four, Utc(2026, 11, 2, 8), Utc(2026, 11, 3, 14)},
        std::tuple{"team-b", one, Utc(2026, 11, 2, 0), Utc(2026, 11, 2, 10, 30)},
        std::tuple{"team-b", one, Utc(2026, 11, 20, 0), Utc(2026, 11, 21, 0)}}) {
    EXPECT_TRUE(book.Accrue(Accruals(ns, charge, {from, to})).has_value());
  }
  auto other =
      Accruals("team-c", {{"gpu-equivalents", 1000}}, {Utc(2026, 11, 5), Utc(2026, 11, 6)});
  EXPECT_TRUE(book.Accrue(other).has_value());
  ReportQuery q = *QueryForMonth("2026-11");
  q.by = GroupBy::kDay;
  return BuildReport(book, {}, q);
}

// The chart parses as XML and its bars are the report's figures: one segment per (day,
// namespace) row of the resource, each as tall as its GPU-hours on the axis's scale.
TEST(UsageChartTest, DrawsTheReportsFigures) {
  UsageReport report = ByDay();
  Result<std::string> svg = RenderDailyChart(report, "nvidia.com/gpu");
  ASSERT_TRUE(svg.has_value()) << svg.error().message;
  std::string error;
  auto elements = ParseXml(*svg, error);
  ASSERT_EQ(error, "");
  ASSERT_FALSE(elements.empty());
  EXPECT_EQ(elements[0].first, "svg");
  std::map<std::pair<std::string, std::string>, std::string> drawn;
  std::map<std::pair<std::string, std::string>, double> heights;
  for (const auto& [name, attrs] : elements) {
    if (name != "rect" || !attrs.contains("data-day")) continue;
    auto key = std::pair{attrs.at("data-day"), attrs.at("data-namespace")};
    drawn[key] = attrs.at("data-gpu-hours");
    heights[key] = std::stod(attrs.at("height"));
  }
  std::map<std::pair<std::string, std::string>, std::string> reported;
  for (const ReportRow& row : report.rows) {
    if (row.resource == "nvidia.com/gpu")
      reported[{row.day, row.ns}] = FormatGpuHours(row.milliGpuSeconds);
  }
  EXPECT_EQ(drawn, reported);
  // Heights on one scale: 2026-11-02's team-a (64 GPU-hours) is the tallest segment, and every
  // segment's height per GPU-hour is the same to the drawing's precision.
  double perHour = heights[{"2026-11-02", "team-a"}] / 64;
  for (const auto& [key, h] : heights) {
    EXPECT_NEAR(h, perHour * std::stod(drawn[key]), 0.01) << key.first << " " << key.second;
  }
  EXPECT_EQ(*RenderDailyChart(report, "nvidia.com/gpu"), *svg);  // deterministic
}

TEST(UsageChartTest, Refusals) {
  UsageReport report = ByDay();
  report.by = GroupBy::kNamespace;
  EXPECT_EQ(RenderDailyChart(report, "nvidia.com/gpu").error().message,
            "a chart is drawn from a report grouped by day");
  report.by = GroupBy::kDay;
  report.last = report.first + std::chrono::days(62);
  EXPECT_EQ(RenderDailyChart(report, "nvidia.com/gpu").error().message,
            "a chart covers at most 62 days");
}

TEST(UsageChartTest, TheXmlCheckCatchesBrokenDocuments) {
  for (const char* bad : {"<svg><rect></svg>", "<svg a=\"1\" a=\"2\"/>", "<svg>a & b</svg>",
                          "<svg/><svg/>", "<svg x=1/>"}) {
    std::string error;
    ParseXml(bad, error);
    EXPECT_NE(error, "") << bad;
  }
}

}  // namespace
}  // namespace gpugate::usage
