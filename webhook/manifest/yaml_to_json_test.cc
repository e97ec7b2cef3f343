#include "manifest/yaml_to_json.h"

#include <gtest/gtest.h>

#include <string>

namespace gpugate::manifest {
namespace {

// Converts one YAML document to compact JSON text, or "error at LINE: message".
std::string Convert(const std::string& yaml) {
  auto json = YamlToJson(YAML::Load(yaml));
  if (!json) return "error at " + std::to_string(json.error().line) + ": " + json.error().message;
  return json->dump();
}

// Plain scalars resolve as go-yaml v2 resolves them for kubectl; quoted ones stay strings.
TEST(YamlToJson, ScalarsResolveAsKubectlResolvesThem) {
  const struct {
    std::string yaml;  // the value of `v:`
    std::string json;
  } cases[] = {
      // Quantities: the case that matters to the rules.
      {"1", "1"},
      {"\"1\"", "\"1\""},
      {"'1'", "\"1\""},
      {"0.5", "0.5"},
      {"\"0.5\"", "\"0.5\""},
      {"500m", "\"500m\""},
      {"1Gi", "\"1Gi\""},
      {"1e3", "1000"},  // a float Go's encoder writes whole
      {"1.0", "1"},
      {"1.50", "1.5"},
      {"-2", "-2"},
      {"+3", "3"},
      {".5", "0.5"},
      {"1_000", "1000"},
      {"0x1F", "31"},
      {"0o17", "15"},
      {"017", "15"},  // a leading zero is octal in YAML 1.1
      {"08", "8"},    // not octal: a float, written whole
      {"0b101", "5"},
      {"9223372036854775807", "9223372036854775807"},
      {"-9223372036854775808", "-9223372036854775808"},
      {"18446744073709551615", "18446744073709551615"},
      {"1.", "1"},
      {"1e", "\"1e\""},
      {"1.2.3", "\"1.2.3\""},
      {"2026-01-02", "\"2026-01-02\""},  // timestamps stay strings
      {"-x", "\"-x\""},
      {"+", "\"+\""},
      {".", "\".\""},
      {"0x", "\"0x\""},
      // Booleans, YAML 1.1's spellings included.
      {"true", "true"},
      {"False", "false"},
      {"yes", "true"},
      {"No", "false"},
      {"on", "true"},
      {"OFF", "false"},
      {"y", "true"},
      {"n", "false"},
      {"\"yes\"", "\"yes\""},
      {"yes please", "\"yes please\""},
      // Null.
      {"", "null"},
      {"~", "null"},
      {"null", "null"},
      {"NULL", "null"},
      {"'null'", "\"null\""},
      // Strings, whatever they look like once quoted, folded or tagged.
      {"nvidia.com/gpu", "\"nvidia.com/gpu\""},
      {"|\n  1\n", "\"1\\n\""},
      {">-\n  true\n", "\"true\""},
      {"!!str 1", "\"1\""},
      {"!!int \"7\"", "7"},
      {"!custom 1", "\"1\""},
      {"\"\\u00e9\"", "\"\u00e9\""},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.yaml);
    EXPECT_EQ(Convert("v: " + c.yaml), "{\"v\":" + c.json + "}");
  }
}

TEST(YamlToJson, CollectionsKeysAndMerges) {
  const struct {
    std::string yaml;
    std::string json;
  } cases[] = {
      {"a: [1, \"2\", x]", R"({"a":[1,"2","x"]})"},
      {"- a\n- {b: 1}\n", R"(["a",{"b":1}])"},
      {"{}", "{}"},
      {"a: []\nb: {}", R"({"a":[],"b":{}})"},
      // Keys become strings, as sigs.k8s.io/yaml makes them.
      {"1: a\ntrue: b\nyes: c\n1.5: d", R"({"1":"a","1.5":"d","true":"c"})"},
      {"y: 1\nn: 2", R"({"false":2,"true":1})"},  // go-yaml v2's YAML 1.1 booleans, as kubectl
      {"\"1\": a", R"({"1":"a"})"},
      // Aliases copy; merge keys add what is not set, the first map listed winning.
      {"base: &b {x: 1, z: 2}\nuse: *b", R"({"base":{"x":1,"z":2},"use":{"x":1,"z":2}})"},
      {"b: &b {x: 1, z: 2}\nm:\n  <<: *b\n  z: 3", R"({"b":{"x":1,"z":2},"m":{"x":1,"z":3}})"},
      {"a: &a {x: 1}\nb: &b {x: 2, z: 2}\nm: {<<: [*a, *b]}",
       R"({"a":{"x":1},"b":{"x":2,"z":2},"m":{"x":1,"z":2}})"},
      {"\"<<\": 1", R"({"<<":1})"},
      // JSON is YAML.
      {R"({"kind": "Pod", "n": 1.5, "s": "1", "b": false, "z": null})",
       R"({"b":false,"kind":"Pod","n":1.5,"s":"1","z":null})"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.yaml);
    EXPECT_EQ(Convert(c.yaml), c.json);
  }
}

TEST(YamlToJson, RefusesWhatJsonCannotHoldNamingTheLine) {
  const struct {
    std::string yaml;
    std::string error;
  } cases[] = {
      {"a: 1\nb: .inf", "error at 2: \".inf\" is not a number JSON can hold"},
      {"a:\n  b: -.Inf", "error at 2: \"-.Inf\" is not a number JSON can hold"},
      {"a: .nan", "error at 1: \".nan\" is not a number JSON can hold"},
      {"a: 1\n[x]: 2", "error at 2: a map key must be a string, a number or a boolean"},
      {"a: 1\n~: 2", "error at 2: a map key must be a string, a number or a boolean"},
      {"a: 1\nm: {<<: 3}", "error at 2: << merges only maps"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.yaml);
    EXPECT_EQ(Convert(c.yaml), c.error);
  }
}

TEST(YamlToJson, AliasesCannotExpandWithoutBound) {
  // Nine levels of ten aliases each: 10^9 values once expanded.
  std::string yaml = "l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i <= 9; ++i) {
    const std::string prev = "*l" + std::to_string(i - 1);
    yaml += "l" + std::to_string(i) + ": &l" + std::to_string(i) + " [";
    for (int j = 0; j < 10; ++j) yaml += (j ? ", " : "") + prev;
    yaml += "]\n";
  }
  const std::string got = Convert(yaml);
  EXPECT_TRUE(got.starts_with("error at ")) << got.substr(0, 200);
  EXPECT_NE(got.find("more than 2097152 values"), std::string::npos) << got.substr(0, 200);
}

TEST(YamlToJson, LineOfIsOneBased) {
  YAML::Node doc = YAML::Load("# comment\na: 1\nb:\n  - x\n");
  EXPECT_EQ(LineOf(doc), 2);
  EXPECT_EQ(LineOf(doc["b"][0]), 4);
}

}  // namespace
}  // namespace gpugate::manifest
