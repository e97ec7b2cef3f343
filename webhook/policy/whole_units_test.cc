#include <gtest/gtest.h>

#include "policy/checks.h"
#include "policy/testing.h"

namespace gpugate::policy {
namespace {

using testing::PodBuilder;

// Manages only example.com/x: the defaults are then unmanaged and must be ignored.
Settings OnlyExample() {
  Settings s;
  s.resources = {testing::Resource("example.com/x")};
  return s;
}

TEST(WholeUnits, Table) {
  const testing::RuleCase cases[] = {
      {"whole values in any spelling pass",
       PodBuilder()
           .Container("a")
           .Gpu("nvidia.com/gpu", "1")
           .Limit("amd.com/gpu", "1000m")
           .Limit("tencent.com/vcuda-memory", "1.5e1")
           .Limit("volcano.sh/gpu-number", " 2 ")
           .Limit("aliyun.com/gpu-mem", "0")
           .Build(),
       {}},
      {"the canonical message",
       PodBuilder().Container("setup").Container("trainer").Limit("nvidia.com/gpu", "0.5").Build(),
       {R"(spec.containers[1] "trainer": nvidia.com/gpu limit "0.5" must be a whole number of GPUs)"}},
      {"template path prefix",
       PodBuilder("spec.template.spec").Container("a").Request("nvidia.com/gpu", "1500m").Build(),
       {R"(spec.template.spec.containers[0] "a": nvidia.com/gpu request "1500m" must be a whole number of GPUs)"}},
      {"units for memory and core shares",
       PodBuilder()
           .Container("a")
           .Request("tencent.com/vcuda-memory", "1.5")
           .Limit("volcano.sh/gpu-memory", "0.1")
           .Build(),
       {R"(spec.containers[0] "a": tencent.com/vcuda-memory request "1.5" must be a whole number of units)",
        R"(spec.containers[0] "a": volcano.sh/gpu-memory limit "0.1" must be a whole number of units)"}},
      {"GPUs for device counts and patterns",
       PodBuilder()
           .Container("a")
           .Limit("nvidia.com/mig-1g.5gb", "0.5")
           .Limit("volcano.sh/gpu-number", "2.5")
           .Limit("amd.com/gpu", "0.25")
           .Build(),
       {R"(spec.containers[0] "a": amd.com/gpu limit "0.25" must be a whole number of GPUs)",
        R"(spec.containers[0] "a": nvidia.com/mig-1g.5gb limit "0.5" must be a whole number of GPUs)",
        R"(spec.containers[0] "a": volcano.sh/gpu-number limit "2.5" must be a whole number of GPUs)"}},
      {"invalid, negative and wrong type",
       PodBuilder()
           .Container("a")
           .Limit("nvidia.com/gpu", "abc")
           .Request("nvidia.com/gpu", "-1")
           .LimitOfType("amd.com/gpu", "object")
           .Build(),
       {R"(spec.containers[0] "a": amd.com/gpu limit must be a quantity string, got object)",
        R"(spec.containers[0] "a": nvidia.com/gpu limit "abc" is not a valid quantity)",
        R"(spec.containers[0] "a": nvidia.com/gpu request "-1" must not be negative)"}},
      {"values are quoted as JSON",
       PodBuilder().Container("a").Limit("nvidia.com/gpu", "1\"").Build(),
       {R"(spec.containers[0] "a": nvidia.com/gpu limit "1\"" is not a valid quantity)"}},
      {"unmanaged resources are ignored",
       PodBuilder()
           .Container("a")
           .Gpu("cpu", "0.5")
           .Limit("example.com/fpga", "0.5")
           .Limit("nvidia.com/gpu-typo", "x")
           .Build(),
       {}},
      {"only the configured resources are managed",
       PodBuilder()
           .Container("a")
           .Limit("example.com/x", "0.5")
           .Limit("nvidia.com/gpu", "0.5")
           .Build(),
       {R"(spec.containers[0] "a": example.com/x limit "0.5" must be a whole number of units)"},
       OnlyExample()},
      {"init, regular, ephemeral order; by name, limit before request",
       PodBuilder()
           .Ephemeral("debug")
           .Limit("nvidia.com/gpu", "0.5")
           .Container("main")
           .Request("nvidia.com/gpu", "0.5")
           .Limit("nvidia.com/gpu", "0.5")
           .Request("amd.com/gpu", "0.5")
           .Init("setup")
           .Limit("nvidia.com/gpu", "0.5")
           .Build(),
       {R"(spec.initContainers[0] "setup": nvidia.com/gpu limit "0.5" must be a whole number of GPUs)",
        R"(spec.containers[0] "main": amd.com/gpu request "0.5" must be a whole number of GPUs)",
        R"(spec.containers[0] "main": nvidia.com/gpu limit "0.5" must be a whole number of GPUs)",
        R"(spec.containers[0] "main": nvidia.com/gpu request "0.5" must be a whole number of GPUs)",
        R"(spec.ephemeralContainers[0] "debug": nvidia.com/gpu limit "0.5" must be a whole number of GPUs)"}},
  };
  testing::ExpectRule(CheckWholeUnits, kWholeUnitsRule, cases);
}

}  // namespace
}  // namespace gpugate::policy
