#include "quota/pod_charge.h"

#include <gtest/gtest.h>

#include <string>

#include "policy/testing.h"

namespace gpugate::quota {
namespace {

using policy::PodSpecView;
using policy::Settings;
using policy::testing::PodBuilder;

// "name=milli,name=milli": raw milli-units, so the tests show that figures stay exact.
std::string Render(const Amounts& amounts) {
  std::string out;
  for (const auto& [name, milli] : amounts) {
    if (!out.empty()) out += ",";
    out += name + "=" + std::to_string(milli);
  }
  return out;
}

// gpu-equivalents: a whole NVIDIA or AMD card is 1, a vCUDA core share (1/100 card) is 0.01.
QuotaConfig GpuEquivalents() {
  QuotaConfig config;
  config.weights["gpu-equivalents"] = {
      {"nvidia.com/gpu", 1000}, {"amd.com/gpu", 1000}, {"tencent.com/vcuda-core", 10}};
  return config;
}

TEST(PodCharge, Table) {
  struct Case {
    std::string name;
    PodSpecView pod;
    std::string want;
    QuotaConfig config = {};
  } cases[] = {
      {"single container", PodBuilder().Container("a").Gpu("nvidia.com/gpu", "2").Build(),
       "nvidia.com/gpu=2000"},
      {"regular containers are summed per resource",
       PodBuilder()
           .Container("a")
           .Gpu("nvidia.com/gpu", "1")
           .Container("b")
           .Gpu("nvidia.com/gpu", "2")
           .Gpu("tencent.com/vcuda-memory", "4")
           .Build(),
       "nvidia.com/gpu=3000,tencent.com/vcuda-memory=4000"},
      {"quantities in any whole spelling",
       PodBuilder()
           .Container("a")
           .Gpu("nvidia.com/gpu", "1000m")
           .Container("b")
           .Gpu("nvidia.com/gpu", " 1e1 ")
           .Build(),
       "nvidia.com/gpu=11000"},
      {"an init container larger than the sum wins",
       PodBuilder()
           .Init("setup")
           .Gpu("nvidia.com/gpu", "4")
           .Container("a")
           .Gpu("nvidia.com/gpu", "1")
           .Container("b")
           .Gpu("nvidia.com/gpu", "1")
           .Build(),
       "nvidia.com/gpu=4000"},
      {"init containers run one at a time: the largest counts, not their sum",
       PodBuilder()
           .Init("one")
           .Gpu("nvidia.com/gpu", "2")
           .Init("two")
           .Gpu("nvidia.com/gpu", "3")
           .Container("a")
           .Gpu("nvidia.com/gpu", "1")
           .Build(),
       "nvidia.com/gpu=3000"},
      {"max per resource: init wins one resource, containers the other",
       PodBuilder()
           .Init("setup")
           .Gpu("nvidia.com/gpu", "2")
           .Container("a")
           .Gpu("nvidia.com/gpu", "1")
           .Gpu("amd.com/gpu", "1")
           .Build(),
       "amd.com/gpu=1000,nvidia.com/gpu=2000"},
      {"sidecar counts with the containers; a later init runs beside it: max(1+2, 2+1)",
       PodBuilder()
           .Sidecar("proxy")
           .Gpu("nvidia.com/gpu", "1")
           .Init("setup")
           .Gpu("nvidia.com/gpu", "2")
           .Container("a")
           .Gpu("nvidia.com/gpu", "2")
           .Build(),
       "nvidia.com/gpu=3000"},
      {"an init before the sidecar runs alone: max(1+2, 4)",
       PodBuilder()
           .Init("setup")
           .Gpu("nvidia.com/gpu", "4")
           .Sidecar("proxy")
           .Gpu("nvidia.com/gpu", "1")
           .Container("a")
           .Gpu("nvidia.com/gpu", "2")
           .Build(),
       "nvidia.com/gpu=4000"},
      {"an init after the sidecar needs its own request plus the sidecar's: max(1+2, 3+1)",
       PodBuilder()
           .Sidecar("proxy")
           .Gpu("nvidia.com/gpu", "1")
           .Init("setup")
           .Gpu("nvidia.com/gpu", "3")
           .Container("a")
           .Gpu("nvidia.com/gpu", "2")
           .Build(),
       "nvidia.com/gpu=4000"},
      {"sidecars accumulate: the second sidecar's start needs both",
       PodBuilder()
           .Sidecar("one")
           .Gpu("nvidia.com/gpu", "2")
           .Sidecar("two")
           .Gpu("nvidia.com/gpu", "3")
           .Build(),
       "nvidia.com/gpu=5000"},
      {"restartPolicy other than Always is a regular init container",
       [] {
         PodSpecView pod = PodBuilder()
                               .Init("setup")
                               .Gpu("nvidia.com/gpu", "1")
                               .Container("a")
                               .Gpu("nvidia.com/gpu", "1")
                               .Build();
         pod.containers[0].restartPolicy = "Never";
         return pod;
       }(),
       "nvidia.com/gpu=1000"},
      {"ephemeral containers are not counted",
       PodBuilder()
           .Container("a")
           .Gpu("nvidia.com/gpu", "1")
           .Ephemeral("debug")
           .Gpu("nvidia.com/gpu", "8")
           .Build(),
       "nvidia.com/gpu=1000"},
      {"the pod's overhead (its RuntimeClass's) adds to its requests, as PodRequests adds it",
       PodBuilder()
           .Container("a")
           .Gpu("nvidia.com/gpu", "1")
           .Overhead("nvidia.com/gpu", "1")
           .Overhead("cpu", "250m")
           .Build(),
       "nvidia.com/gpu=2000"},
      {"overhead comes on top of the init containers' peak: max(1, 3) + 1",
       PodBuilder()
           .Init("setup")
           .Gpu("nvidia.com/gpu", "3")
           .Container("a")
           .Gpu("nvidia.com/gpu", "1")
           .Overhead("nvidia.com/gpu", "1")
           .Build(),
       "nvidia.com/gpu=4000"},
      {"overhead alone is charged; in it too, only whole managed quantities count",
       PodBuilder()
           .Container("a")
           .Limit("cpu", "1")
           .Overhead("amd.com/gpu", "2")
           .Overhead("nvidia.com/gpu", "0.5")
           .Overhead("example.com/fpga", "1")
           .Build(),
       "amd.com/gpu=2000"},
      {"a limit stands in for an absent request",
       PodBuilder()
           .Container("a")
           .Limit("nvidia.com/gpu", "2")
           .Container("b")
           .Limit("amd.com/gpu", "3")
           .Request("amd.com/gpu", "1")
           .Build(),
       "amd.com/gpu=1000,nvidia.com/gpu=2000"},
      {"patterns are managed too, by the pod's resource name",
       PodBuilder().Container("a").Limit("nvidia.com/mig-1g.5gb", "2").Build(),
       "nvidia.com/mig-1g.5gb=2000"},
      {"non-managed resources are ignored",
       PodBuilder()
           .Container("a")
           .Gpu("example.com/fpga", "1")
           .Request("cpu", "2")
           .Gpu("nvidia.com/gpu", "1")
           .Build(),
       "nvidia.com/gpu=1000"},
      {"invalid quantities are skipped; a present but invalid request does not fall back",
       PodBuilder()
           .Container("a")
           .Limit("nvidia.com/gpu", "1")
           .Request("nvidia.com/gpu", "0.5")
           .Container("b")
           .Limit("amd.com/gpu", "-1")
           .Container("c")
           .LimitOfType("tencent.com/vcuda-core", "object")
           .Build(),
       ""},
      {"zero entries are left out",
       PodBuilder().Container("a").Gpu("nvidia.com/gpu", "0").Gpu("amd.com/gpu", "1").Build(),
       "amd.com/gpu=1000"},
      {"no managed resources: empty charge", PodBuilder().Container("a").Build(), ""},
      {"a quantity past int64 milli-units saturates instead of wrapping",
       PodBuilder()
           .Container("a")
           .Gpu("nvidia.com/gpu", "1e18")
           .Container("b")
           .Gpu("nvidia.com/gpu", "1e18")
           .Build(),
       "nvidia.com/gpu=9223372036854775807"},
      {"weights: 1 GPU + 50 vcuda-core at 0.01 = 1.5 gpu-equivalents",
       PodBuilder()
           .Container("a")
           .Gpu("nvidia.com/gpu", "1")
           .Container("b")
           .Gpu("tencent.com/vcuda-core", "50")
           .Build(),
       "gpu-equivalents=1500,nvidia.com/gpu=1000,tencent.com/vcuda-core=50000", GpuEquivalents()},
      {"weights mix vendors and apply to the effective request",
       PodBuilder()
           .Init("warmup")
           .Gpu("amd.com/gpu", "2")
           .Container("a")
           .Gpu("amd.com/gpu", "1")
           .Gpu("tencent.com/vcuda-core", "25")
           .Container("b")
           .Gpu("tencent.com/vcuda-core", "30")
           .Build(),
       "amd.com/gpu=2000,gpu-equivalents=2550,tencent.com/vcuda-core=55000", GpuEquivalents()},
      {"a figure of zero is left out",
       PodBuilder().Container("a").Gpu("tencent.com/vcuda-memory", "8").Build(),
       "tencent.com/vcuda-memory=8000", GpuEquivalents()},
      {"several figures", PodBuilder().Container("a").Gpu("nvidia.com/gpu", "3").Build(),
       "cost=7500,gpu-equivalents=3000,nvidia.com/gpu=3000",
       [] {
         QuotaConfig config = GpuEquivalents();
         config.weights["cost"] = {{"nvidia.com/gpu", 2500}};
         return config;
       }()},
  };
  Settings settings;
  for (const auto& c : cases) {
    EXPECT_EQ(Render(PodCharge(c.pod, settings, c.config)), c.want) << c.name;
  }
}

TEST(PodCharge, OnlyTheConfiguredResourcesAreManaged) {
  Settings settings;
  settings.resources = {policy::testing::Resource("example.com/fpga")};
  PodSpecView pod =
      PodBuilder().Container("a").Gpu("example.com/fpga", "2").Gpu("nvidia.com/gpu", "1").Build();
  EXPECT_EQ(Render(PodCharge(pod, settings, {})), "example.com/fpga=2000");
}

// Pinned pods count again per flavor they may run on; unpinned ones and non-GPU pods do not.
TEST(PodCharge, PinnedPodsAreChargedPerFlavor) {
  QuotaConfig config = GpuEquivalents();
  config.flavors = {
      {.name = "a100", .nodeLabels = {{"nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB"}}},
      {.name = "t4", .nodeLabels = {{"nvidia.com/gpu.product", "Tesla-T4"}}},
  };
  struct Case {
    std::string name;
    PodSpecView pod;
    std::string want;
  } cases[] = {
      {"one flavor",
       PodBuilder()
           .Container("a")
           .Gpu("nvidia.com/gpu", "2")
           .NodeSelector("nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB")
           .Build(),
       "gpu-equivalents=2000,gpu-equivalents@a100=2000,nvidia.com/gpu=2000,"
       "nvidia.com/gpu@a100=2000"},
      {"either of two: counted against both",
       PodBuilder()
           .Container("a")
           .Gpu("nvidia.com/gpu", "1")
           .NodeTerm({{"nvidia.com/gpu.product", "In", "Tesla-T4", "NVIDIA-A100-SXM4-80GB"}})
           .Build(),
       "gpu-equivalents=1000,gpu-equivalents@a100=1000,gpu-equivalents@t4=1000,"
       "nvidia.com/gpu=1000,nvidia.com/gpu@a100=1000,nvidia.com/gpu@t4=1000"},
      {"a model no flavor names",
       PodBuilder()
           .Container("a")
           .Gpu("nvidia.com/gpu", "1")
           .NodeSelector("nvidia.com/gpu.product", "NVIDIA-L4")
           .Build(),
       "gpu-equivalents=1000,nvidia.com/gpu=1000"},
      {"not pinned", PodBuilder().Container("a").Gpu("nvidia.com/gpu", "1").Build(),
       "gpu-equivalents=1000,nvidia.com/gpu=1000"},
      {"pinned, but no GPU",
       PodBuilder()
           .Container("a")
           .Request("cpu", "1")
           .NodeSelector("nvidia.com/gpu.product", "Tesla-T4")
           .Build(),
       ""},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(Render(PodCharge(c.pod, Settings{}, config)), c.want) << c.name;
  }
}

}  // namespace
}  // namespace gpugate::quota
