#include "cluster/limits.h"

#include <gtest/gtest.h>

namespace gpugate::cluster {
namespace {

using nlohmann::json;

TEST(ClusterLedgerLimitsTest, ReadsManagedResourcesFromResourceQuota) {
  struct Case {
    const char* name;
    const char* spec;
    const char* want;  // quota::FormatAmounts of the limits
  };
  const Case cases[] = {
      {"requests key", R"({"hard": {"requests.nvidia.com/gpu": "4"}})", "nvidia.com/gpu=4"},
      {"plain key", R"({"hard": {"nvidia.com/gpu": "3"}})", "nvidia.com/gpu=3"},
      {"both: smaller wins", R"({"hard": {"requests.nvidia.com/gpu": "4", "nvidia.com/gpu": "2"}})",
       "nvidia.com/gpu=2"},
      {"quantity forms", R"({"hard": {"requests.nvidia.com/gpu": "2k", "amd.com/gpu": "500m"}})",
       "amd.com/gpu=0.5,nvidia.com/gpu=2000"},
      {"pattern resource", R"({"hard": {"requests.nvidia.com/mig-1g.5gb": "7"}})",
       "nvidia.com/mig-1g.5gb=7"},
      {"unmanaged and limits keys ignored",
       R"({"hard": {"requests.cpu": "10", "pods": "5", "limits.nvidia.com/gpu": "1"}})", ""},
      {"garbage ignored", R"({"hard": {"nvidia.com/gpu": "lots", "amd.com/gpu": "-1"}})", ""},
      {"scoped quota ignored",
       R"({"hard": {"requests.nvidia.com/gpu": "1"}, "scopes": ["BestEffort"]})", ""},
      {"scope selector ignored",
       R"({"hard": {"requests.nvidia.com/gpu": "1"},
           "scopeSelector": {"matchExpressions": [{"scopeName": "PriorityClass",
                                                   "operator": "Exists"}]}})",
       ""},
      {"no hard", R"({})", ""},
  };
  for (const Case& c : cases) {
    json rq = {{"metadata", {{"name", "q"}, {"namespace", "ns"}}}, {"spec", json::parse(c.spec)}};
    EXPECT_EQ(quota::FormatAmounts(ResourceQuotaLimits(rq, policy::Settings{})), c.want) << c.name;
  }
}

// Limits per GPU flavor: "flavor.gpugate.io/<flavor>.<resource with _ for />", for configured
// flavors and managed resources only.
TEST(ClusterLedgerLimitsTest, ReadsLimitsPerFlavor) {
  const std::vector<policy::Flavor> flavors = {{.name = "a100", .nodeLabels = {{"p", "A100"}}},
                                               {.name = "t4", .nodeLabels = {{"p", "T4"}}}};
  json rq = {{"spec",
              {{"hard",
                {{"requests.nvidia.com/gpu", "8"},
                 {"flavor.gpugate.io/a100.nvidia.com_gpu", "2"},
                 {"flavor.gpugate.io/t4.nvidia.com_gpu", "6"},
                 {"flavor.gpugate.io/h100.nvidia.com_gpu", "1"},       // no such flavor
                 {"flavor.gpugate.io/a100.example.com_fpga", "1"},     // not managed
                 {"flavor.gpugate.io/a100", "1"},                      // no resource
                 {"flavor.gpugate.io/a100.nvidia.com-gpu", "1"}}}}}};  // no '_'
  EXPECT_EQ(quota::FormatAmounts(ResourceQuotaLimits(rq, policy::Settings{}, flavors)),
            "nvidia.com/gpu=8,nvidia.com/gpu@a100=2,nvidia.com/gpu@t4=6");
  EXPECT_EQ(FlavorQuotaKey("a100", "nvidia.com/gpu"), "flavor.gpugate.io/a100.nvidia.com_gpu");
  // Without flavors configured, the keys are ignored.
  EXPECT_EQ(quota::FormatAmounts(ResourceQuotaLimits(rq, policy::Settings{})), "nvidia.com/gpu=8");
}

TEST(ClusterLedgerLimitsTest, MinLimitsTakesTheSmallerOrWhicheverExists) {
  quota::Amounts config = {{"gpu-equivalents", 6000}, {"nvidia.com/gpu", 4000}};
  quota::Amounts quota = {{"amd.com/gpu", 2000}, {"nvidia.com/gpu", 3000}};
  EXPECT_EQ(quota::FormatAmounts(MinLimits(config, quota)),
            "amd.com/gpu=2,gpu-equivalents=6,nvidia.com/gpu=3");
  EXPECT_EQ(MinLimits({{"nvidia.com/gpu", 0}}, {{"nvidia.com/gpu", 5000}}).at("nvidia.com/gpu"), 0);
}

}  // namespace
}  // namespace gpugate::cluster
