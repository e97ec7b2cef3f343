#include "policy/gpu_demand.h"

#include <gtest/gtest.h>

#include "policy/testing.h"

namespace gpugate::policy {
namespace {

using testing::PodBuilder;

TEST(RequestedManagedResources, Table) {
  struct Case {
    std::string name;
    PodSpecView pod;
    std::vector<std::string> want;
  } cases[] = {
      {"none", PodBuilder().Container("a").Gpu("cpu", "1").Build(), {}},
      {"sorted and unique over every container kind",
       PodBuilder()
           .Ephemeral("debug")
           .Limit("nvidia.com/gpu", "1")
           .Container("main")
           .Gpu("nvidia.com/gpu", "1")
           .Request("amd.com/gpu", "2")
           .Init("setup")
           .Limit("nvidia.com/mig-1g.5gb", "1000m")
           .Build(),
       {"amd.com/gpu", "nvidia.com/gpu", "nvidia.com/mig-1g.5gb"}},
      {"zero, negative, invalid and wrong-type values are not requests",
       PodBuilder()
           .Container("a")
           .Gpu("nvidia.com/gpu", "0")
           .Limit("amd.com/gpu", "-1")
           .Limit("aliyun.com/gpu-mem", "abc")
           .LimitOfType("tencent.com/vcuda-core", "object")
           .Build(),
       {}},
      {"a valid fraction is a request (whole-units refuses it)",
       PodBuilder().Container("a").Limit("nvidia.com/gpu", "0.5").Build(),
       {"nvidia.com/gpu"}},
      {"unmanaged resources are not GPUs",
       PodBuilder().Container("a").Gpu("example.com/fpga", "1").Build(),
       {}},
  };
  for (const Case& c : cases) {
    const std::vector<std::string_view> got = RequestedManagedResources(c.pod, Settings{});
    EXPECT_EQ(std::vector<std::string>(got.begin(), got.end()), c.want) << c.name;
    EXPECT_EQ(IsGpuPod(c.pod, Settings{}), !c.want.empty()) << c.name;
  }
}

// Renders the outcome as one string: "-" for none, "scheduler from source", or "error: ...".
std::string Render(const Result<std::optional<SchedulerRequirement>>& r) {
  if (!r) return "error: " + r.error().message;
  if (!*r) return "-";
  return (*r)->scheduler + " from " + (*r)->source;
}

TEST(RequiredScheduler, Table) {
  Settings defaults;
  Settings withOther;
  withOther.resources.push_back(testing::Resource("example.com/x", "other"));
  Settings mutation;
  mutation.schedulerName = "hami-scheduler";
  struct Case {
    std::string name;
    PodSpecView pod;
    const Settings& settings;
    std::string want;
  } cases[] = {
      {"no GPU", PodBuilder().Container("a").Gpu("cpu", "1").Build(), defaults, "-"},
      {"GPU without a scheduler", PodBuilder().Container("a").Gpu("nvidia.com/gpu", "1").Build(),
       defaults, "-"},
      {"a resource's scheduler",
       PodBuilder().Container("a").Gpu("volcano.sh/gpu-memory", "1").Build(), defaults,
       "volcano from volcano.sh/gpu-memory"},
      {"a pattern's scheduler, first by name",
       PodBuilder()
           .Container("a")
           .Gpu("volcano.sh/vgpu-number", "1")
           .Gpu("volcano.sh/gpu-number", "1")
           .Build(),
       defaults, "volcano from volcano.sh/gpu-number"},
      {"resources that disagree",
       PodBuilder()
           .Container("a")
           .Gpu("volcano.sh/gpu-memory", "1")
           .Container("b")
           .Gpu("example.com/x", "1")
           .Build(),
       withOther,
       R"(error: example.com/x requires scheduler "other" but volcano.sh/gpu-memory requires scheduler "volcano")"},
      {"a zero request does not disagree",
       PodBuilder()
           .Container("a")
           .Gpu("volcano.sh/gpu-memory", "1")
           .Gpu("example.com/x", "0")
           .Build(),
       withOther, "volcano from volcano.sh/gpu-memory"},
      {"mutation.schedulerName wins",
       PodBuilder().Container("a").Gpu("volcano.sh/gpu-memory", "1").Build(), mutation,
       "hami-scheduler from mutation.schedulerName"},
      {"mutation.schedulerName only for GPU pods", PodBuilder().Container("a").Build(), mutation,
       "-"},
  };
  for (const Case& c : cases)
    EXPECT_EQ(Render(RequiredScheduler(c.pod, c.settings)), c.want) << c.name;
}

}  // namespace
}  // namespace gpugate::policy
