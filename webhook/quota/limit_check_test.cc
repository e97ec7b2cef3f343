#include "quota/limit_check.h"

#include <gtest/gtest.h>

namespace gpugate::quota {
namespace {

constexpr char kGpu[] = "nvidia.com/gpu";
constexpr char kA100[] = "nvidia.com/gpu@a100";

TEST(LimitCheck, ExceededMessageNamesOnlyWhatWouldGoOver) {
  const struct {
    Amounts hard, used, requested;
    std::string want;
  } cases[] = {
      {{{kGpu, 4000}}, {{kGpu, 3000}}, {{kGpu, 1000}}, ""},
      {{{kGpu, 4000}},
       {{kGpu, 4000}},
       {{kGpu, 1000}},
       "exceeded quota: team-a, requested: nvidia.com/gpu=1, used: nvidia.com/gpu=4, limited: "
       "nvidia.com/gpu=4"},
      {{{kGpu, 8000}, {kA100, 2000}},
       {{kGpu, 2000}, {kA100, 2000}},
       {{kGpu, 1000}, {kA100, 1000}},
       "exceeded quota: team-a, requested: nvidia.com/gpu@a100=1, used: nvidia.com/gpu@a100=2, "
       "limited: nvidia.com/gpu@a100=2"},
      {{}, {{kGpu, 9000}}, {{kGpu, 1000}}, ""},  // no limit
  };
  for (const auto& c : cases) {
    EXPECT_EQ(ExceededMessage("team-a", c.hard, c.used, c.requested), c.want);
  }
}

TEST(LimitCheck, OverLimitMessageNamesOnlyWhatIsAboveItsLimit) {
  const struct {
    Amounts hard, used;
    std::string want;
  } cases[] = {
      {{{kGpu, 4000}}, {{kGpu, 4000}}, ""},  // at the limit: full, not over
      {{{kGpu, 4000}},
       {{kGpu, 6000}},
       "over quota: team-a, used: nvidia.com/gpu=6, limited: nvidia.com/gpu=4"},
      {{{kGpu, 8000}, {kA100, 2000}, {"gpu-equivalents", 1500}},
       {{kGpu, 3000}, {kA100, 3000}, {"gpu-equivalents", 1750}},
       "over quota: team-a, used: gpu-equivalents=1.75,nvidia.com/gpu@a100=3, limited: "
       "gpu-equivalents=1.5,nvidia.com/gpu@a100=2"},
      {{{kGpu, 0}},
       {{kGpu, 1000}},
       "over quota: team-a, used: nvidia.com/gpu=1, limited: nvidia.com/gpu=0"},
      {{}, {{kGpu, 9000}}, ""},  // no limit
      {{{kGpu, 4000}}, {}, ""},  // nothing used
  };
  for (const auto& c : cases) {
    EXPECT_EQ(OverLimitMessage("team-a", OverLimits(c.hard, c.used)), c.want);
  }
}

}  // namespace
}  // namespace gpugate::quota
