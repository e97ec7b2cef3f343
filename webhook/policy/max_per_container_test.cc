#include <gtest/gtest.h>

#include "policy/checks.h"
#include "policy/testing.h"

namespace gpugate::policy {
namespace {

using testing::PodBuilder;

// Time-slicing style: one nvidia.com/gpu and one MIG slice per container.
Settings TimeSliced() {
  Settings s;
  for (ManagedResource& r : s.resources) {
    if (r.name == "nvidia.com/gpu" || r.name == "nvidia.com/mig-*") r.maxPerContainer = 1;
  }
  return s;
}

TEST(MaxPerContainer, Table) {
  struct Case {
    std::string name;
    PodSpecView pod;
    std::vector<std::string> want;
    Settings settings = TimeSliced();
  } cases[] = {
      {"at the maximum", PodBuilder().Container("a").Gpu("nvidia.com/gpu", "1").Build(), {}},
      {"at the maximum by value",
       PodBuilder().Container("a").Gpu("nvidia.com/gpu", "1000m").Build(),
       {}},
      {"limit above the maximum",
       PodBuilder().Container("a").Gpu("nvidia.com/gpu", "2").Build(),
       {R"(spec.containers[0] "a": nvidia.com/gpu limit "2" exceeds the maximum of 1 per container)"}},
      {"a request counts when there is no limit",
       PodBuilder().Container("a").Request("nvidia.com/gpu", "2").Build(),
       {R"(spec.containers[0] "a": nvidia.com/gpu request "2" exceeds the maximum of 1 per container)"}},
      {"the limit wins over a different request",
       PodBuilder()
           .Container("a")
           .Limit("nvidia.com/gpu", "1")
           .Request("nvidia.com/gpu", "3")
           .Build(),
       {}},
      {"values whole-units reports are skipped",
       PodBuilder().Container("a").Limit("nvidia.com/gpu", "1.5").Build(),
       {}},
      {"patterns apply to each matching resource",
       PodBuilder()
           .Init("setup")
           .Gpu("nvidia.com/mig-1g.5gb", "2")
           .Ephemeral("debug")
           .Gpu("nvidia.com/mig-2g.10gb", "3")
           .Container("main")
           .Gpu("nvidia.com/mig-3g.20gb", "1")
           .Build(),
       {R"(spec.initContainers[0] "setup": nvidia.com/mig-1g.5gb limit "2" exceeds the maximum of 1 per container)",
        R"(spec.ephemeralContainers[0] "debug": nvidia.com/mig-2g.10gb limit "3" exceeds the maximum of 1 per container)"}},
      {"resources without a maximum are unbounded",
       PodBuilder("spec.template.spec").Container("a").Gpu("amd.com/gpu", "8").Build(),
       {}},
      {"no maximum in the default settings",
       PodBuilder().Container("a").Gpu("nvidia.com/gpu", "8").Build(),
       {},
       Settings{}},
      {"template path",
       PodBuilder("spec.template.spec").Container("a").Gpu("nvidia.com/gpu", "4").Build(),
       {R"(spec.template.spec.containers[0] "a": nvidia.com/gpu limit "4" exceeds the maximum of 1 per container)"}},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(testing::RunRule(CheckMaxPerContainer, kMaxPerContainerRule, c.pod, c.settings),
              c.want)
        << c.name;
  }
}

}  // namespace
}  // namespace gpugate::policy
