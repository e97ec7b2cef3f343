#include <gtest/gtest.h>

#include "policy/checks.h"
#include "policy/testing.h"

namespace gpugate::policy {
namespace {

using testing::PodBuilder;

constexpr char kVolcanoMemory[] = "volcano.sh/gpu-memory";

// Adds example.com/x, placed by a scheduler named "other".
Settings WithOther() {
  Settings s;
  s.resources.push_back(testing::Resource("example.com/x", "other"));
  return s;
}

Settings MutationScheduler() {
  Settings s;
  s.schedulerName = "hami-scheduler";
  return s;
}

TEST(Scheduler, Table) {
  const testing::RuleCase cases[] = {
      {"nodeName with no scheduler named",
       PodBuilder().Container("a").Gpu(kVolcanoMemory, "1024").NodeName("node-1").Build(),
       {R"(spec.nodeName "node-1" bypasses the volcano scheduler that volcano.sh/gpu-memory requires; remove nodeName)"}},
      {"nodeName with the default scheduler",
       PodBuilder()
           .Container("a")
           .Gpu(kVolcanoMemory, "1024")
           .SchedulerName("default-scheduler")
           .NodeName("n")
           .Build(),
       {R"(spec.nodeName "n" bypasses the volcano scheduler that volcano.sh/gpu-memory requires; remove nodeName)"}},
      {"nodeName with the required scheduler still skips it",
       PodBuilder("spec.template.spec")
           .Init("i")
           .Gpu(kVolcanoMemory, "1")
           .SchedulerName("volcano")
           .NodeName("n")
           .Build(),
       {R"(spec.template.spec.nodeName "n" bypasses the volcano scheduler that volcano.sh/gpu-memory requires; remove nodeName)"}},
      {"the required scheduler without nodeName",
       PodBuilder().Container("a").Gpu(kVolcanoMemory, "1").SchedulerName("volcano").Build(),
       {}},
      {"no scheduler, no nodeName (mutation sets the scheduler)",
       PodBuilder().Container("a").Gpu(kVolcanoMemory, "1").Build(),
       {}},
      {"an explicit other scheduler is left alone",
       PodBuilder()
           .Container("a")
           .Gpu(kVolcanoMemory, "1")
           .SchedulerName("custom")
           .NodeName("n")
           .Build(),
       {}},
      {"resources without a scheduler",
       PodBuilder().Container("a").Gpu("nvidia.com/gpu", "1").NodeName("n").Build(),
       {}},
      {"not requested (zero) is no requirement",
       PodBuilder().Container("a").Gpu(kVolcanoMemory, "0").NodeName("n").Build(),
       {}},
      {"resources that agree",
       PodBuilder()
           .Container("a")
           .Gpu("volcano.sh/gpu-number", "1")
           .Container("b")
           .Gpu(kVolcanoMemory, "1")
           .NodeName("n")
           .Build(),
       {R"(spec.nodeName "n" bypasses the volcano scheduler that volcano.sh/gpu-memory requires; remove nodeName)"}},
      {"resources that disagree, named in resource order",
       PodBuilder()
           .Container("a")
           .Gpu(kVolcanoMemory, "1")
           .Ephemeral("b")
           .Gpu("example.com/x", "1")
           .NodeName("n")
           .Build(),
       {R"(spec: example.com/x requires scheduler "other" but volcano.sh/gpu-memory requires scheduler "volcano")"},
       WithOther()},
      {"mutation.schedulerName applies to every GPU pod",
       PodBuilder().Container("a").Gpu("nvidia.com/gpu", "1").NodeName("node-1").Build(),
       {R"(spec.nodeName "node-1" bypasses the hami-scheduler scheduler that mutation.schedulerName requires; remove nodeName)"},
       MutationScheduler()},
      {"mutation.schedulerName does not apply to other pods",
       PodBuilder().Container("a").Gpu("cpu", "1").NodeName("node-1").Build(),
       {},
       MutationScheduler()},
  };
  testing::ExpectRule(CheckScheduler, kSchedulerRule, cases);
}

}  // namespace
}  // namespace gpugate::policy
