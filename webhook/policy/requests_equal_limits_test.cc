#include <gtest/gtest.h>

#include "policy/checks.h"
#include "policy/testing.h"

namespace gpugate::policy {
namespace {

using testing::PodBuilder;

TEST(RequestsEqualLimits, Table) {
  struct Case {
    std::string name;
    PodSpecView pod;
    std::vector<std::string> want;
  } cases[] = {
      {"equal", PodBuilder().Container("a").Gpu("nvidia.com/gpu", "2").Build(), {}},
      {"equal by value",
       PodBuilder()
           .Container("a")
           .Limit("nvidia.com/gpu", "1")
           .Request("nvidia.com/gpu", "1000m")
           .Build(),
       {}},
      {"a limit alone is fine (Kubernetes copies it to the request)",
       PodBuilder().Container("a").Limit("nvidia.com/gpu", "1").Build(),
       {}},
      {"request without a limit",
       PodBuilder().Container("a").Request("nvidia.com/gpu", "1").Build(),
       {R"(spec.containers[0] "a": nvidia.com/gpu request "1" has no limit; set the limit to the same value)"}},
      {"request differs from its limit",
       PodBuilder()
           .Container("a")
           .Limit("nvidia.com/gpu", "2")
           .Request("nvidia.com/gpu", "1")
           .Build(),
       {R"(spec.containers[0] "a": nvidia.com/gpu request "1" must equal its limit "2")"}},
      {"values whole-units reports are skipped",
       PodBuilder()
           .Container("a")
           .Request("nvidia.com/gpu", "0.5")
           .Limit("amd.com/gpu", "abc")
           .Request("amd.com/gpu", "1")
           .LimitOfType("tencent.com/vcuda-memory", "array")
           .Request("tencent.com/vcuda-memory", "4")
           .Request("aliyun.com/gpu-mem", "-2")
           .Build(),
       {}},
      {"unmanaged resources are ignored",
       PodBuilder()
           .Container("a")
           .Limit("cpu", "2")
           .Request("cpu", "1")
           .Request("example.com/x", "1")
           .Build(),
       {}},
      {"template path, init and ephemeral containers, by resource name",
       PodBuilder("spec.template.spec")
           .Ephemeral("debug")
           .Request("nvidia.com/gpu", "1")
           .Container("main")
           .Limit("nvidia.com/gpu", "1")
           .Request("nvidia.com/gpu", "2")
           .Request("amd.com/gpu", "1")
           .Init("setup")
           .Limit("nvidia.com/mig-1g.5gb", "1")
           .Request("nvidia.com/mig-1g.5gb", "3")
           .Build(),
       {R"(spec.template.spec.initContainers[0] "setup": nvidia.com/mig-1g.5gb request "3" must equal its limit "1")",
        R"(spec.template.spec.containers[0] "main": amd.com/gpu request "1" has no limit; set the limit to the same value)",
        R"(spec.template.spec.containers[0] "main": nvidia.com/gpu request "2" must equal its limit "1")",
        R"(spec.template.spec.ephemeralContainers[0] "debug": nvidia.com/gpu request "1" has no limit; set the limit to the same value)"}},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(
        testing::RunRule(CheckRequestsEqualLimits, kRequestsEqualLimitsRule, c.pod, Settings{}),
        c.want)
        << c.name;
  }
}

}  // namespace
}  // namespace gpugate::policy
