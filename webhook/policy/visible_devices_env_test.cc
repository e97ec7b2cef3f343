#include <gtest/gtest.h>

#include "policy/checks.h"
#include "policy/testing.h"

namespace gpugate::policy {
namespace {

using testing::PodBuilder;

constexpr char kEnv[] = "NVIDIA_VISIBLE_DEVICES";

Settings Allowed() {
  Settings s;
  s.denyVisibleDevicesEnv = false;
  return s;
}

TEST(VisibleDevicesEnv, Table) {
  const testing::RuleCase cases[] = {
      {"values that expose no device",
       PodBuilder()
           .Container("a")
           .Env(kEnv, "none")
           .Container("b")
           .Env(kEnv, "void")
           .Container("c")
           .Env(kEnv, "")
           .Build(),
       {}},
      {"all, in a pod that requests no GPU",
       PodBuilder().Container("a").Env("PATH", "/bin").Env(kEnv, "all").Build(),
       {R"(spec.containers[0] "a": env NVIDIA_VISIBLE_DEVICES "all" bypasses the GPU device plugin; request a managed GPU resource instead)"}},
      {"valueFrom cannot be checked",
       PodBuilder().Container("a").EnvFrom(kEnv).Build(),
       {R"(spec.containers[0] "a": env NVIDIA_VISIBLE_DEVICES set from valueFrom cannot be checked and bypasses the GPU device plugin)"}},
      {"other variables and spellings are not the runtime's",
       PodBuilder()
           .Container("a")
           .Env("NVIDIA_VISIBLE_DEVICES_X", "all")
           .Env("nvidia_visible_devices", "all")
           .Build(),
       {}},
      {"every container kind, in order, under a template",
       PodBuilder("spec.template.spec")
           .Ephemeral("debug")
           .Env(kEnv, "GPU-1a2b")
           .Container("main")
           .Gpu("nvidia.com/gpu", "1")
           .Env(kEnv, "0,1")
           .Init("setup")
           .Env(kEnv, "all")
           .Build(),
       {R"(spec.template.spec.initContainers[0] "setup": env NVIDIA_VISIBLE_DEVICES "all" bypasses the GPU device plugin; request a managed GPU resource instead)",
        R"(spec.template.spec.containers[0] "main": env NVIDIA_VISIBLE_DEVICES "0,1" bypasses the GPU device plugin; request a managed GPU resource instead)",
        R"(spec.template.spec.ephemeralContainers[0] "debug": env NVIDIA_VISIBLE_DEVICES "GPU-1a2b" bypasses the GPU device plugin; request a managed GPU resource instead)"}},
      {"each entry of a repeated name",
       PodBuilder().Container("a").Env(kEnv, "none").Env(kEnv, "all\"").Build(),
       {R"(spec.containers[0] "a": env NVIDIA_VISIBLE_DEVICES "all\"" bypasses the GPU device plugin; request a managed GPU resource instead)"}},
      {"off in the settings",
       PodBuilder().Container("a").Env(kEnv, "all").EnvFrom(kEnv).Build(),
       {},
       Allowed()},
  };
  testing::ExpectRule(CheckVisibleDevicesEnv, kVisibleDevicesEnvRule, cases);
}

}  // namespace
}  // namespace gpugate::policy
