#include "policy/flavor.h"

#include <gtest/gtest.h>

#include "policy/testing.h"

namespace gpugate::policy {
namespace {

using testing::PodBuilder;

constexpr const char* kProduct = "nvidia.com/gpu.product";

const std::vector<Flavor> kFlavors = {
    {.name = "a100", .nodeLabels = {{kProduct, "NVIDIA-A100-SXM4-80GB"}}},
    {.name = "h100", .nodeLabels = {{kProduct, "NVIDIA-H100-80GB-HBM3"}}},
    {.name = "t4",
     .nodeLabels = {{"cloud.example.com/pool", "inference"}, {kProduct, "Tesla-T4"}},
     .gpuTypes = {"NVIDIA-Tesla T4"}},
};

// "pinned: a100,h100", "unpinned: a100,h100,t4", "pinned: (none)".
std::string Render(const FlavorPin& pin) {
  std::string out = pin.pinned ? "pinned: " : "unpinned: ";
  if (pin.flavors.empty()) return out + "(none)";
  for (size_t i = 0; i < pin.flavors.size(); ++i) out += (i ? "," : "") + pin.flavors[i];
  return out;
}

struct Case {
  std::string name;
  PodSpecView pod;
  std::string want;
};

PodBuilder GpuPod() {
  PodBuilder b;
  b.Container("main").Gpu("nvidia.com/gpu", "1");
  return b;
}

class PodFlavorsTest : public ::testing::TestWithParam<Case> {};

TEST_P(PodFlavorsTest, Resolves) {
  EXPECT_EQ(Render(PodFlavors(GetParam().pod, kFlavors)), GetParam().want);
}

INSTANTIATE_TEST_SUITE_P(
    Pins, PodFlavorsTest,
    ::testing::Values(
        Case{"NoPinMayRunAnywhere", GpuPod().Build(), "unpinned: a100,h100,t4"},
        Case{"NodeSelectorOnTheProduct",
             GpuPod().NodeSelector(kProduct, "NVIDIA-A100-SXM4-80GB").Build(), "pinned: a100"},
        Case{"NodeSelectorOnALabelNoFlavorDefines", GpuPod().NodeSelector("zone", "eu-1").Build(),
             "unpinned: a100,h100,t4"},
        // Only t4 defines the pool label: the other flavors' nodes may carry it too.
        Case{"NodeSelectorOnOneFlavorsExtraLabel",
             GpuPod().NodeSelector("cloud.example.com/pool", "training").Build(),
             "pinned: a100,h100"},
        Case{"NodeSelectorOnAModelNoFlavorNames",
             GpuPod().NodeSelector(kProduct, "NVIDIA-L4").Build(), "pinned: (none)"},
        Case{"AffinityInTwoModels",
             GpuPod()
                 .NodeTerm({{kProduct, "In", "NVIDIA-A100-SXM4-80GB", "NVIDIA-H100-80GB-HBM3"}})
                 .Build(),
             "pinned: a100,h100"},
        Case{"AffinityNotInOne", GpuPod().NodeTerm({{kProduct, "NotIn", "Tesla-T4"}}).Build(),
             "pinned: a100,h100"},
        Case{"AffinityTermsAreOred",
             GpuPod()
                 .NodeTerm({{kProduct, "In", "Tesla-T4"}})
                 .NodeTerm({{kProduct, "In", "NVIDIA-H100-80GB-HBM3"}})
                 .Build(),
             "pinned: h100,t4"},
        Case{"AffinityExpressionsAreAnded",
             GpuPod()
                 .NodeTerm({{kProduct, "In", "Tesla-T4", "NVIDIA-A100-SXM4-80GB"},
                            {"cloud.example.com/pool", "In", "inference"}})
                 .Build(),
             "pinned: a100,t4"},
        Case{"AffinityDoesNotExistOnTheProduct",
             GpuPod().NodeTerm({{kProduct, "DoesNotExist"}}).Build(), "pinned: (none)"},
        Case{"AffinityOnOtherLabelsOnly",
             GpuPod().NodeTerm({{"kubernetes.io/arch", "In", "amd64"}}).Build(),
             "unpinned: a100,h100,t4"},
        Case{"AnEmptyTermMatchesNoNode", GpuPod().NodeTerm({}).Build(), "unpinned: (none)"},
        Case{"MatchFieldsDecidesNothing", GpuPod().NodeTerm({}, /*onFields=*/true).Build(),
             "unpinned: a100,h100,t4"},
        Case{"NodeSelectorAndAffinityIntersect",
             GpuPod()
                 .NodeSelector(kProduct, "NVIDIA-A100-SXM4-80GB")
                 .NodeTerm({{kProduct, "In", "Tesla-T4"}})
                 .Build(),
             "pinned: (none)"},
        // HAMi matches keywords as case-insensitive substrings of a GPU type's name: "a10" is
        // also in "A100".
        Case{"HamiUseGpuType",
             GpuPod().Annotation(std::string(kUseGpuTypeAnnotation), "h100").Build(),
             "pinned: h100"},
        Case{"HamiKeywordsAreSubstrings",
             GpuPod().Annotation(std::string(kUseGpuTypeAnnotation), "A10, T4").Build(),
             "pinned: a100,t4"},
        Case{"HamiNoUseGpuType",
             GpuPod().Annotation(std::string(kNoUseGpuTypeAnnotation), "Tesla T4").Build(),
             "pinned: a100,h100"},
        Case{"HamiAnnotationAndNodeSelectorIntersect",
             GpuPod()
                 .Annotation(std::string(kUseGpuTypeAnnotation), "A100,H100")
                 .NodeSelector(kProduct, "NVIDIA-H100-80GB-HBM3")
                 .Build(),
             "pinned: h100"}),
    [](const auto& info) { return info.param.name; });

TEST(FlavoredName, RoundTrips) {
  EXPECT_EQ(FlavoredName("nvidia.com/gpu", "a100"), "nvidia.com/gpu@a100");
  auto split = SplitFlavored("gpu-equivalents@t4");
  ASSERT_TRUE(split);
  EXPECT_EQ(split->first, "gpu-equivalents");
  EXPECT_EQ(split->second, "t4");
  EXPECT_FALSE(SplitFlavored("nvidia.com/gpu"));
  EXPECT_FALSE(SplitFlavored("nvidia.com/gpu@"));
  EXPECT_FALSE(SplitFlavored("@a100"));
}

}  // namespace
}  // namespace gpugate::policy
