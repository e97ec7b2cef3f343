// The Helm chart's values as an operator reads about them, without Helm: every value in
// manifests/helm/gpugate/values.schema.json is in the table of docs/deployment.md ("Helm values"),
// with its type, default (from values.yaml) and description, and values.yaml sets nothing the
// schema does not declare. The table is generated from the two files: UPDATE_GOLDEN=1 rewrites it
// between its markers. Also: the chart's dashboard is docs/grafana-gpu-quota.json, and the chart
// installs the image the kustomize base and `make image` name. The renders themselves need Helm:
// tests/chart/ (make chart-test).
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "test_paths.h"

namespace gpugate::testing {
namespace {

const std::string kChart = std::string(GPUGATE_SOURCE_DIR) + "/manifests/helm/gpugate";
const std::string kDocs = std::string(GPUGATE_SOURCE_DIR) + "/docs/deployment.md";
constexpr std::string_view kBegin = "<!-- helm-values: generated from values.schema.json -->\n";
constexpr std::string_view kEnd = "<!-- helm-values: end -->\n";

std::string FileContents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A value's default as values.yaml writes it, in YAML's flow style on one line; a config key
// values.yaml leaves out keeps gpugate's own default.
std::string Default(const YAML::Node& values, const std::string& path) {
  YAML::Node node = YAML::Clone(values);
  std::stringstream parts(path);
  for (std::string part; std::getline(parts, part, '.');) {
    if (!node.IsMap() || !node[part]) return "gpugate's default";
    node = node[part];
  }
  if (node.IsNull()) return "`null`";
  if (node.IsScalar() && node.Scalar().empty()) return "`\"\"`";
  YAML::Emitter out;
  out.SetMapFormat(YAML::Flow);
  out.SetSeqFormat(YAML::Flow);
  out << node;
  const std::string text = out.c_str();
  return text.size() > 60 ? "see values.yaml" : "`" + text + "`";
}

std::string Type(const nlohmann::ordered_json& p) {
  if (p.contains("enum")) {
    std::string out;
    for (const auto& e : p["enum"]) out += (out.empty() ? "" : " \\| ") + e.dump();
    return out;
  }
  if (p["type"].is_array()) {
    std::string out;
    for (const auto& t : p["type"]) out += (out.empty() ? "" : " or ") + t.get<std::string>();
    return out;
  }
  return p["type"].get<std::string>();
}

// One row per property, depth first in the schema's order (ordered_json keeps it); objects with
// properties of their own get rows for those instead.
void Rows(const nlohmann::ordered_json& props, const std::string& prefix, const YAML::Node& values,
          std::vector<std::string>& paths, std::string& table) {
  for (const auto& [name, p] : props.items()) {
    const std::string path = prefix + name;
    paths.push_back(path);
    if (p.contains("properties")) {
      Rows(p["properties"], path + ".", values, paths, table);
      continue;
    }
    std::string def = Default(values, path);
    table += "| `" + path + "` | " + Type(p) + " | " + def + " | " +
             p.value("description", std::string()) + " |\n";
  }
}

struct Chart {
  nlohmann::ordered_json schema =
      nlohmann::ordered_json::parse(FileContents(kChart + "/values.schema.json"));
  YAML::Node values = YAML::LoadFile(kChart + "/values.yaml");
  std::vector<std::string> paths;
  std::string table = "| value | type | default | what it sets |\n| --- | --- | --- | --- |\n";
  Chart() { Rows(schema["properties"], "", values, paths, table); }
};

TEST(ChartValues, EveryValueOfTheSchemaIsDocumented) {
  Chart chart;
  std::string docs = FileContents(kDocs);
  const size_t begin = docs.find(kBegin);
  const size_t end = docs.find(kEnd);
  ASSERT_NE(begin, std::string::npos) << kDocs << " has no line " << kBegin;
  ASSERT_NE(end, std::string::npos) << kDocs << " has no line " << kEnd;
  const size_t from = begin + kBegin.size();
  if (std::getenv("UPDATE_GOLDEN") != nullptr) {
    docs.replace(from, end - from, chart.table);
    std::ofstream(kDocs, std::ios::binary) << docs;
    return;
  }
  EXPECT_EQ(docs.substr(from, end - from), chart.table)
      << "docs/deployment.md's Helm values table is not values.schema.json's; run with "
         "UPDATE_GOLDEN=1 and review the diff";
}

// values.yaml's keys, down to the schema's leaves: each is one the schema declares, so the
// schema (additionalProperties: false) would not refuse the chart's own defaults, and a value
// added to values.yaml without a description fails here.
void Keys(const YAML::Node& node, const nlohmann::ordered_json& schema, const std::string& prefix,
          std::vector<std::string>& undeclared) {
  if (!node.IsMap() || !schema.contains("properties")) return;
  for (const auto& kv : node) {
    const std::string key = kv.first.as<std::string>();
    if (!schema["properties"].contains(key)) {
      undeclared.push_back(prefix + key);
      continue;
    }
    Keys(kv.second, schema["properties"][key], prefix + key + ".", undeclared);
  }
}

TEST(ChartValues, ValuesYamlSetsOnlyWhatTheSchemaDeclares) {
  Chart chart;
  std::vector<std::string> undeclared;
  Keys(chart.values, chart.schema, "", undeclared);
  EXPECT_TRUE(undeclared.empty()) << ::testing::PrintToString(undeclared);
  // and the schema refuses what it does not declare, at every level that has properties
  EXPECT_EQ(chart.schema["additionalProperties"], false);
  for (const char* key : {"image", "webhooks", "certificates", "config", "ledger"}) {
    EXPECT_EQ(chart.schema["properties"][key]["additionalProperties"], false) << key;
  }
}

TEST(ChartValues, TheChartsDashboardIsTheDocumentedOne) {
  EXPECT_EQ(FileContents(kChart + "/files/grafana-gpu-quota.json"),
            FileContents(std::string(GPUGATE_SOURCE_DIR) + "/docs/grafana-gpu-quota.json"))
      << "copy docs/grafana-gpu-quota.json to the chart's files/";
}

// Every gpugate metric a panel queries is one gpugate documents (the metric tables of
// docs/quota.md and docs/reliability.md), so a renamed metric cannot leave a panel empty, and the
// budget panels read the budget gauges.
TEST(ChartValues, TheDashboardQueriesDocumentedMetrics) {
  const nlohmann::json dashboard = nlohmann::json::parse(
      FileContents(std::string(GPUGATE_SOURCE_DIR) + "/docs/grafana-gpu-quota.json"));
  std::string documented;
  for (const char* doc : {"/docs/quota.md", "/docs/reliability.md"}) {
    documented += FileContents(std::string(GPUGATE_SOURCE_DIR) + doc);
  }
  std::set<std::string> queried;
  std::set<int> ids;
  for (const nlohmann::json& panel : dashboard["panels"]) {
    EXPECT_TRUE(ids.insert(panel["id"].get<int>()).second) << "panel id " << panel["id"];
    for (const nlohmann::json& target : panel["targets"]) {
      const std::string expr = target["expr"];
      for (size_t at = expr.find("gpugate_"); at != std::string::npos;
           at = expr.find("gpugate_", at + 1)) {
        size_t end = expr.find_first_not_of("abcdefghijklmnopqrstuvwxyz_", at);
        queried.insert(expr.substr(at, end - at));
        at = end - 1;
      }
    }
  }
  for (const char* budget : {"gpugate_budget_gpu_hours", "gpugate_budget_spent_gpu_hours"}) {
    EXPECT_TRUE(queried.count(budget)) << budget << " is on no panel";
  }
  for (const std::string& metric : queried) {
    EXPECT_NE(documented.find("`" + metric + "`"), std::string::npos)
        << metric << " is queried but not documented";
  }
}

TEST(ChartValues, ChartAndKustomizeInstallTheSameImage) {
  const YAML::Node chart = YAML::LoadFile(kChart + "/Chart.yaml");
  const YAML::Node values = YAML::LoadFile(kChart + "/values.yaml");
  const YAML::Node base =
      YAML::LoadFile(std::string(GPUGATE_SOURCE_DIR) + "/manifests/base/kustomization.yaml");
  EXPECT_EQ(values["image"]["repository"].as<std::string>(),
            base["images"][0]["name"].as<std::string>());
  EXPECT_EQ(values["image"]["tag"].as<std::string>(), "") << "the tag comes from appVersion";
  EXPECT_EQ(chart["appVersion"].as<std::string>(), base["images"][0]["newTag"].as<std::string>());
}

}  // namespace
}  // namespace gpugate::testing
