#include "quota/usage_snapshot.h"

#include <gtest/gtest.h>

#include "quota/testing.h"

namespace gpugate::quota {
namespace {

using testutil::RenderUsage;

QuotaConfig Config() {
  QuotaConfig config;
  config.limits["team-a"] = {{"nvidia.com/gpu", 8000}, {"nvidia.com/gpu@a100", 2000}};
  config.limits["team-b"] = {{"nvidia.com/gpu", 2000}};
  return config;
}

TEST(UsageSnapshot, TheSmallerOfEveryLimitApplies) {
  UsageSnapshot snapshot(Config());
  snapshot.AddLimits("team-a", {{"nvidia.com/gpu", 4000}});       // a ResourceQuota
  snapshot.AddLimits("team-a", {{"nvidia.com/gpu@a100", 3000}});  // another, looser
  snapshot.AddLimits("team-c", {{"amd.com/gpu", 1000}});          // no configured limit
  EXPECT_EQ(FormatAmounts(snapshot.Limits("team-a")), "nvidia.com/gpu=4,nvidia.com/gpu@a100=2");
  EXPECT_EQ(FormatAmounts(snapshot.Limits("team-b")), "nvidia.com/gpu=2");
  EXPECT_EQ(FormatAmounts(snapshot.Limits("team-c")), "amd.com/gpu=1");
  EXPECT_TRUE(snapshot.Limits("team-d").empty());
}

TEST(UsageSnapshot, UsageReportsLimitsAndUseOfEveryNamespaceWithEither) {
  UsageSnapshot snapshot(Config());
  snapshot.SetUsed("team-a", {{"nvidia.com/gpu", 5000}, {"nvidia.com/gpu@a100", 1000}});
  snapshot.SetUsed("team-z", {{"nvidia.com/gpu", 1000}});
  EXPECT_EQ(RenderUsage(snapshot),
            "team-a{nvidia.com/gpu=5/8,nvidia.com/gpu@a100=1/2} team-b{nvidia.com/gpu=0/2} "
            "team-z{nvidia.com/gpu=1}");
  EXPECT_EQ(RenderUsage(snapshot, "team-b"), "team-b{nvidia.com/gpu=0/2}");
  EXPECT_EQ(snapshot.Namespaces(), (std::vector<std::string>{"team-a", "team-b", "team-z"}));
}

TEST(UsageSnapshot, ChargesNothing) {
  UsageSnapshot snapshot(Config());
  EXPECT_FALSE(snapshot.Reserve({"team-a", "p", "u"}, {{"nvidia.com/gpu", 1000}}, false));
  EXPECT_FALSE(snapshot.Release({"team-a", "p", "u"}));
  EXPECT_TRUE(snapshot.Used("team-a").empty());
}

}  // namespace
}  // namespace gpugate::quota
