#include "quota/report.h"

#include <gtest/gtest.h>

namespace gpugate::quota {
namespace {

constexpr const char* kGpu = "nvidia.com/gpu";
constexpr const char* kEquiv = "gpu-equivalents";
constexpr const char* kCore = "tencent.com/vcuda-core";

// One namespace's usage: {resource, used, hard} in milli-units.
struct Entry {
  std::string resource;
  int64_t used;
  std::optional<int64_t> hard;
};
NamespaceUsage Ns(std::string name, std::vector<Entry> entries) {
  NamespaceUsage ns{.ns = std::move(name)};
  for (auto& e : entries) ns.resources[e.resource] = {e.used, e.hard};
  return ns;
}

// Renders usage back as a short string, for comparing parse results.
std::string Describe(const std::vector<NamespaceUsage>& usage) {
  std::string out;
  for (const auto& ns : usage) {
    if (!out.empty()) out += " ";
    out += ns.ns + ":";
    for (const auto& [name, r] : ns.resources) {
      out += " " + name + "=" + std::to_string(r.used) + "/" +
             (r.hard ? std::to_string(*r.hard) : "-");
    }
    out += ";";
  }
  return out;
}

TEST(ReportJson, RendersNumbersWithoutQuotesOrTrailingZeros) {
  struct Case {
    std::string name;
    std::vector<NamespaceUsage> usage;
    std::string want;
  } cases[] = {
      {"empty", {}, R"({"namespaces":[]})"},
      {"whole",
       {Ns("team-a", {{kGpu, 2000, 4000}})},
       R"({"namespaces":[{"namespace":"team-a","resources":{"nvidia.com/gpu":{"used":2,"hard":4}}}]})"},
      {"no hard, fractions, sorted resources",
       {Ns("team-a", {{kGpu, 0, std::nullopt}, {kEquiv, 1250, 6000}}),
        Ns("team-b", {{kEquiv, 500, std::nullopt}})},
       R"({"namespaces":[{"namespace":"team-a","resources":{"gpu-equivalents":{"used":1.25,"hard":6},)"
       R"("nvidia.com/gpu":{"used":0}}},)"
       R"({"namespace":"team-b","resources":{"gpu-equivalents":{"used":0.5}}}]})"},
      {"escaped names",
       {Ns("a\"b", {{"x\\y", 1, std::nullopt}})},
       R"({"namespaces":[{"namespace":"a\"b","resources":{"x\\y":{"used":0.001}}}]})"},
  };
  for (const auto& c : cases) EXPECT_EQ(UsageJson(c.usage), c.want) << c.name;
}

TEST(ReportJson, ParseReadsWhatUsageJsonWrites) {
  std::vector<NamespaceUsage> usage = {Ns("team-a", {{kGpu, 2000, 4000}, {kEquiv, 1250, 6000}}),
                                       Ns("team-b", {{kCore, 50000, std::nullopt}})};
  auto parsed = ParseUsageJson(UsageJson(usage));
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(Describe(*parsed), Describe(usage));
  EXPECT_EQ(Describe(*parsed),
            "team-a: gpu-equivalents=1250/6000 nvidia.com/gpu=2000/4000; "
            "team-b: tencent.com/vcuda-core=50000/-;");
}

TEST(ReportJson, ParseAcceptsOtherNumberFormsAndIgnoresUnknownKeys) {
  auto parsed = ParseUsageJson(R"({"version":2,"namespaces":[{"namespace":"a","extra":true,)"
                               R"("resources":{"g":{"used":1e3,"hard":2.500,"unit":"x"}}}]})");
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(Describe(*parsed), "a: g=1000000/2500;");
}

TEST(ReportJson, ParseErrorsNameThePath) {
  struct Case {
    std::string input;
    std::string error;
  } cases[] = {
      {"",
       "not valid JSON: parse error at line 1, column 1: syntax error while parsing value - "
       "unexpected end of input; expected '[', '{', or a literal"},
      {"<html>",
       "not valid JSON: parse error at line 1, column 1: syntax error while parsing value - "
       "invalid literal; last read: '<'"},
      {"[]", "want a JSON object with \"namespaces\""},
      {"{}", "namespaces: want an array"},
      {R"({"namespaces":[1]})", "namespaces[0]: want an object"},
      {R"({"namespaces":[{"resources":{}}]})", "namespaces[0].namespace: want a string"},
      {R"({"namespaces":[{"namespace":"a"}]})", "namespaces[0].resources: want an object"},
      {R"({"namespaces":[{"namespace":"a","resources":{"g":{}}}]})",
       "namespaces[0].resources[\"g\"].used: missing"},
      {R"({"namespaces":[{"namespace":"a","resources":{"g":{"used":"2"}}}]})",
       "namespaces[0].resources[\"g\"].used: want a number, got string"},
      {R"({"namespaces":[{"namespace":"a","resources":{"g":{"used":1,"hard":-4}}}]})",
       "namespaces[0].resources[\"g\"].hard: \"-4\": want a non-negative decimal such as 4 or "
       "0.01"},
      {R"({"namespaces":[{"namespace":"a","resources":{"g":{"used":0.0001}}}]})",
       "namespaces[0].resources[\"g\"].used: \"0.0001\": more than three fractional digits"},
      {R"({"namespaces":[{"namespace":"a","resources":{"g":{"used":1e30}}}]})",
       "namespaces[0].resources[\"g\"].used: \"1000000000000000019884624838656\": too large"},
  };
  for (const auto& c : cases) {
    auto parsed = ParseUsageJson(c.input);
    ASSERT_FALSE(parsed) << c.input;
    EXPECT_EQ(parsed.error().message, c.error) << c.input;
  }
}

TEST(ReportTable, Renders) {
  struct Case {
    std::string name;
    std::vector<NamespaceUsage> usage;
    std::string want;
  } cases[] = {
      {"empty",
       {},
       "NAMESPACE   RESOURCE   USED   HARD   USE%\n"
       "No GPU usage or limits.\n"},
      {"single",
       {Ns("team-a", {{kGpu, 2000, 4000}})},
       "NAMESPACE   RESOURCE         USED   HARD   USE%\n"
       "team-a      nvidia.com/gpu   2      4      50%    [##########..........]\n"
       "TOTAL       nvidia.com/gpu   2      4      50%    [##########..........]\n"},
      {"multiple namespaces, sorted, totals per resource",
       {Ns("team-b", {{kGpu, 1000, 8000}}),
        Ns("team-a", {{kGpu, 3000, 4000}, {kCore, 150000, 400000}})},
       "NAMESPACE   RESOURCE                 USED   HARD   USE%\n"
       "team-a      nvidia.com/gpu           3      4      75%    [###############.....]\n"
       "team-a      tencent.com/vcuda-core   150    400    37%    [#######.............]\n"
       "team-b      nvidia.com/gpu           1      8      12%    [##..................]\n"
       "TOTAL       nvidia.com/gpu           4      12     33%    [######..............]\n"
       "TOTAL       tencent.com/vcuda-core   150    400    37%    [#######.............]\n"},
      {"no hard: dashes; TOTAL sums the hards set, and has USE% only without unlimited use",
       {Ns("research", {{kGpu, 6000, std::nullopt}}),
        Ns("team-a", {{kGpu, 1000, 2000}, {kEquiv, 1000, 2000}}),
        Ns("team-b", {{kEquiv, 0, std::nullopt}})},
       "NAMESPACE   RESOURCE          USED   HARD   USE%\n"
       "research    nvidia.com/gpu    6      -      -      -\n"
       "team-a      gpu-equivalents   1      2      50%    [##########..........]\n"
       "team-a      nvidia.com/gpu    1      2      50%    [##########..........]\n"
       "team-b      gpu-equivalents   0      -      -      -\n"
       "TOTAL       gpu-equivalents   1      2      50%    [##########..........]\n"
       "TOTAL       nvidia.com/gpu    7      2      -      -\n"},
      {"no hard anywhere",
       {Ns("team-b", {{kCore, 50000, std::nullopt}})},
       "NAMESPACE   RESOURCE                 USED   HARD   USE%\n"
       "team-b      tencent.com/vcuda-core   50     -      -      -\n"
       "TOTAL       tencent.com/vcuda-core   50     -      -      -\n"},
      {"fractional weighted values",
       {Ns("team-a", {{kEquiv, 1250, 6000}}), Ns("team-b", {{kEquiv, 500, 1500}})},
       "NAMESPACE   RESOURCE          USED   HARD   USE%\n"
       "team-a      gpu-equivalents   1.25   6      20%    [####................]\n"
       "team-b      gpu-equivalents   0.5    1.5    33%    [######..............]\n"
       "TOTAL       gpu-equivalents   1.75   7.5    23%    [####................]\n"},
      {"full, over and zero limits: the bar is capped",
       {Ns("full", {{kGpu, 4000, 4000}}), Ns("nearly", {{kGpu, 3999, 4000}}),
        Ns("over", {{kGpu, 6000, 4000}}), Ns("zero-idle", {{kGpu, 0, 0}}),
        Ns("zero-used", {{kGpu, 1000, 0}})},
       "NAMESPACE   RESOURCE         USED     HARD   USE%\n"
       "full        nvidia.com/gpu   4        4      100%    [####################]\n"
       "nearly      nvidia.com/gpu   3.999    4      99%     [###################.]\n"
       "over        nvidia.com/gpu   6        4      150%    [####################]\n"
       "zero-idle   nvidia.com/gpu   0        0      0%      [....................]\n"
       "zero-used   nvidia.com/gpu   1        0      >100%   [####################]\n"
       "TOTAL       nvidia.com/gpu   14.999   12     124%    [####################]\n"},
  };
  for (const auto& c : cases) EXPECT_EQ(UsageTable(c.usage), c.want) << c.name;
}

TEST(ReportPrometheus, RendersGaugesWithEscapedLabels) {
  std::vector<NamespaceUsage> usage = {
      Ns("team-a", {{kGpu, 2000, 4000}, {kEquiv, 1250, std::nullopt}}),
      Ns("we\"ird\\ns\n", {{kGpu, 0, 0}})};
  EXPECT_EQ(UsagePrometheus(usage),
            "# HELP gpugate_quota_used Amount of a GPU resource or weighted figure charged to a "
            "namespace by admitted pods.\n"
            "# TYPE gpugate_quota_used gauge\n"
            "gpugate_quota_used{namespace=\"team-a\",resource=\"gpu-equivalents\"} 1.25\n"
            "gpugate_quota_used{namespace=\"team-a\",resource=\"nvidia.com/gpu\"} 2\n"
            "gpugate_quota_used{namespace=\"we\\\"ird\\\\ns\\n\",resource=\"nvidia.com/gpu\"} 0\n"
            "# HELP gpugate_quota_hard Hard limit on a GPU resource or weighted figure for a "
            "namespace, where one is configured.\n"
            "# TYPE gpugate_quota_hard gauge\n"
            "gpugate_quota_hard{namespace=\"team-a\",resource=\"nvidia.com/gpu\"} 4\n"
            "gpugate_quota_hard{namespace=\"we\\\"ird\\\\ns\\n\",resource=\"nvidia.com/gpu\"} 0\n");
}

TEST(ReportPrometheus, EmptyUsageStillDeclaresTheGauges) {
  EXPECT_EQ(UsagePrometheus({}),
            "# HELP gpugate_quota_used Amount of a GPU resource or weighted figure charged to a "
            "namespace by admitted pods.\n"
            "# TYPE gpugate_quota_used gauge\n"
            "# HELP gpugate_quota_hard Hard limit on a GPU resource or weighted figure for a "
            "namespace, where one is configured.\n"
            "# TYPE gpugate_quota_hard gauge\n");
}

// Use per GPU flavor: under "flavors" in the JSON (so summing "resources" counts a pod once),
// read back into "resource@flavor" names; in gauges of their own, labelled flavor; as rows of
// their own in the table.
TEST(ReportFlavors, JsonPrometheusAndTable) {
  std::vector<NamespaceUsage> usage = {Ns("team-a", {{kGpu, 3000, 8000},
                                                     {"nvidia.com/gpu@a100", 2000, 2000},
                                                     {"nvidia.com/gpu@t4", 1000, std::nullopt},
                                                     {"gpu-equivalents@t4", 1000, 1500}})};
  std::string json = UsageJson(usage);
  EXPECT_EQ(
      json,
      R"({"namespaces":[{"namespace":"team-a","resources":{"nvidia.com/gpu":{"used":3,"hard":8}},)"
      R"("flavors":{"a100":{"nvidia.com/gpu":{"used":2,"hard":2}},)"
      R"("t4":{"gpu-equivalents":{"used":1,"hard":1.5},"nvidia.com/gpu":{"used":1}}}}]})");
  auto parsed = ParseUsageJson(json);
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(Describe(*parsed), Describe(usage));

  EXPECT_EQ(UsagePrometheus(usage),
            "# HELP gpugate_quota_used Amount of a GPU resource or weighted figure charged to a "
            "namespace by admitted pods.\n"
            "# TYPE gpugate_quota_used gauge\n"
            "gpugate_quota_used{namespace=\"team-a\",resource=\"nvidia.com/gpu\"} 3\n"
            "# HELP gpugate_quota_hard Hard limit on a GPU resource or weighted figure for a "
            "namespace, where one is configured.\n"
            "# TYPE gpugate_quota_hard gauge\n"
            "gpugate_quota_hard{namespace=\"team-a\",resource=\"nvidia.com/gpu\"} 8\n"
            "# HELP gpugate_quota_flavor_used Amount of a GPU resource or weighted figure charged "
            "to a namespace by admitted pods that may run on a GPU flavor (model).\n"
            "# TYPE gpugate_quota_flavor_used gauge\n"
            "gpugate_quota_flavor_used{namespace=\"team-a\",resource=\"gpu-equivalents\","
            "flavor=\"t4\"} 1\n"
            "gpugate_quota_flavor_used{namespace=\"team-a\",resource=\"nvidia.com/gpu\","
            "flavor=\"a100\"} 2\n"
            "gpugate_quota_flavor_used{namespace=\"team-a\",resource=\"nvidia.com/gpu\","
            "flavor=\"t4\"} 1\n"
            "# HELP gpugate_quota_flavor_hard Hard limit on a GPU resource or weighted figure per "
            "GPU flavor (model) for a namespace, where one is configured.\n"
            "# TYPE gpugate_quota_flavor_hard gauge\n"
            "gpugate_quota_flavor_hard{namespace=\"team-a\",resource=\"gpu-equivalents\","
            "flavor=\"t4\"} 1.5\n"
            "gpugate_quota_flavor_hard{namespace=\"team-a\",resource=\"nvidia.com/gpu\","
            "flavor=\"a100\"} 2\n");

  std::string table = UsageTable(usage);
  EXPECT_NE(table.find("team-a      nvidia.com/gpu@a100   2      2      100%   "
                       "[####################]\n"),
            std::string::npos)
      << table;
}

TEST(ReportFlavors, ParseErrorsNameTheFlavor) {
  auto bad = ParseUsageJson(
      R"({"namespaces":[{"namespace":"a","resources":{},"flavors":{"t4":{"g":{"used":"x"}}}}]})");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message,
            "namespaces[0].flavors[\"t4\"][\"g\"].used: want a number, got string");
}

}  // namespace
}  // namespace gpugate::quota
