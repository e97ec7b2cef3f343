// quota.flavors, quota.defaultFlavors and limits per flavor ("nvidia.com/gpu@a100").
#include <gtest/gtest.h>

#include "config/config.h"
#include "config/testing.h"

namespace gpugate::config {
namespace {

constexpr const char* kTwoFlavors =
    "quota:\n"
    "  flavors:\n"
    "    a100:\n"
    "      nodeLabels: {nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB}\n"
    "    t4:\n"
    "      nodeLabels: {nvidia.com/gpu.product: Tesla-T4, pool: inference}\n"
    "      gpuTypes: [NVIDIA-Tesla T4]\n";

TEST(ConfigFlavors, FlavorsDefaultsAndLimitsPerFlavor) {
  auto config = ParseConfig(std::string(kTwoFlavors) +
                                "  defaultFlavors: {team-b: t4}\n"
                                "  weights: {gpu-equivalents: {nvidia.com/gpu: 1}}\n"
                                "  namespaces:\n"
                                "    team-a: {nvidia.com/gpu: 8, nvidia.com/gpu@a100: 2, "
                                "gpu-equivalents@t4: 1.5}\n",
                            "gpugate.yaml");
  ASSERT_TRUE(config) << config.error().message;
  const quota::QuotaConfig& q = config->quota;
  ASSERT_EQ(q.flavors.size(), 2u);
  EXPECT_EQ(q.flavors[0].name, "a100");
  EXPECT_EQ(q.flavors[0].nodeLabels, (std::vector<std::pair<std::string, std::string>>{
                                         {"nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB"}}));
  EXPECT_TRUE(q.flavors[0].gpuTypes.empty());
  EXPECT_EQ(q.flavors[1].name, "t4");
  EXPECT_EQ(q.flavors[1].nodeLabels,
            (std::vector<std::pair<std::string, std::string>>{
                {"nvidia.com/gpu.product", "Tesla-T4"}, {"pool", "inference"}}));
  EXPECT_EQ(q.flavors[1].gpuTypes, (std::vector<std::string>{"NVIDIA-Tesla T4"}));
  EXPECT_EQ(q.defaultFlavors.at("team-b"), "t4");
  EXPECT_EQ(q.limits.at("team-a"), (quota::Amounts{{"gpu-equivalents@t4", 1500},
                                                   {"nvidia.com/gpu", 8000},
                                                   {"nvidia.com/gpu@a100", 2000}}));
}

TEST(ConfigFlavors, Errors) {
  testing::ExpectErrors({
      {"quota:\n  flavors:\n    A100: {nodeLabels: {p: x}}\n",
       "gpugate.yaml:3: quota.flavors.A100: must be a flavor name such as \"a100\", got \"A100\""},
      {"quota:\n  flavors:\n    a100: {gpuTypes: [A100]}\n",
       "gpugate.yaml:3: quota.flavors.a100: nodeLabels: missing"},
      {"quota:\n  flavors:\n    a100: {nodeLabels: {}}\n",
       "gpugate.yaml:3: quota.flavors.a100.nodeLabels: must name at least one node label"},
      {"quota:\n  flavors:\n    a100: {nodeLabels: {\"bad key!\": x}}\n",
       "gpugate.yaml:3: quota.flavors.a100.nodeLabels.bad key!: must be a node label key such as "
       "\"nvidia.com/gpu.product\", got \"bad key!\""},
      {"quota:\n  flavors:\n    a100: {nodeLabels: {p: \"NVIDIA A100\"}}\n",
       "gpugate.yaml:3: quota.flavors.a100.nodeLabels.p: must be a node label value such as "
       "\"NVIDIA-A100-SXM4-80GB\", got \"NVIDIA A100\""},
      {"quota:\n  flavors:\n    a100: {nodeLabels: {p: x}, gpuTypes: [\"A100,H100\"]}\n",
       "gpugate.yaml:3: quota.flavors.a100.gpuTypes[0]: must be a GPU type name such as \"NVIDIA "
       "A100-SXM4-80GB\", without commas, got \"A100,H100\""},
      {"quota:\n  flavors:\n    a100: {nodeLabels: {p: x}}\n    big: {nodeLabels: {p: x}}\n",
       "gpugate.yaml:4: quota.flavors.big: has the same nodeLabels as flavor \"a100\": a node "
       "would "
       "be of both"},
      {"quota:\n  flavors:\n    a100: {nodeLabels: {p: x}}\n  defaultFlavors: {team-a: h100}\n",
       "gpugate.yaml:4: quota.defaultFlavors.team-a: must be a flavor from quota.flavors, got "
       "\"h100\""},
      {"quota:\n  flavors:\n    a100: {nodeLabels: {p: x}}\n"
       "  namespaces: {team-a: {nvidia.com/gpu@h100: 1}}\n",
       "gpugate.yaml:4: quota.namespaces.team-a.nvidia.com/gpu@h100: names flavor \"h100\", which "
       "quota.flavors does not define, in \"nvidia.com/gpu@h100\""},
      {"quota:\n  flavors:\n    a100: {nodeLabels: {p: x}}\n"
       "  namespaces: {team-a: {cpu@a100: 1}}\n",
       "gpugate.yaml:4: quota.namespaces.team-a.cpu@a100: must be a resource gpugate manages (see "
       "resources) or a figure from quota.weights, got \"cpu@a100\""},
  });
}

}  // namespace
}  // namespace gpugate::config
