#include <gtest/gtest.h>

#include "policy/checks.h"
#include "policy/testing.h"

namespace gpugate::policy {
namespace {

using testing::PodBuilder;

Settings Allowed() {
  Settings s;
  s.denyPrivilegedGPU = false;
  return s;
}

TEST(PrivilegedGpu, Table) {
  const testing::RuleCase cases[] = {
      {"privileged container requesting a GPU",
       PodBuilder().Container("a").Gpu("nvidia.com/gpu", "1").Privileged().Build(),
       {R"(spec.containers[0] "a": privileged container in a pod that requests GPUs sees every GPU on the node)"}},
      {"unprivileged GPU pod", PodBuilder().Container("a").Gpu("nvidia.com/gpu", "1").Build(), {}},
      {"privileged pod without GPUs is not ours",
       PodBuilder()
           .Container("a")
           .Privileged()
           .Gpu("cpu", "1")
           .Limit("example.com/fpga", "1")
           .Build(),
       {}},
      {"a zero request is not a GPU pod",
       PodBuilder().Container("a").Gpu("nvidia.com/gpu", "0").Privileged().Build(),
       {}},
      {"every privileged container of a GPU pod, any kind, under a template",
       PodBuilder("spec.template.spec")
           .Ephemeral("debug")
           .Privileged()
           .Container("main")
           .Gpu("volcano.sh/vgpu-number", "1")
           .Container("sidecar")
           .Privileged()
           .Init("setup")
           .Privileged()
           .Build(),
       {R"(spec.template.spec.initContainers[0] "setup": privileged container in a pod that requests GPUs sees every GPU on the node)",
        R"(spec.template.spec.containers[1] "sidecar": privileged container in a pod that requests GPUs sees every GPU on the node)",
        R"(spec.template.spec.ephemeralContainers[0] "debug": privileged container in a pod that requests GPUs sees every GPU on the node)"}},
      {"off in the settings",
       PodBuilder().Container("a").Gpu("nvidia.com/gpu", "1").Privileged().Build(),
       {},
       Allowed()},
  };
  testing::ExpectRule(CheckPrivilegedGpu, kPrivilegedGpuRule, cases);
}

}  // namespace
}  // namespace gpugate::policy
