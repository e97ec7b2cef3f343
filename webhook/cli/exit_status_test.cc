#include "cli/exit_status.h"

#include <gtest/gtest.h>

#include <string>

namespace gpugate::cli {
namespace {

TEST(ExitStatus, OneRuleForCheckAndAudit) {
  const struct {
    std::string name;
    RunOutcome run;
    int want;
  } cases[] = {
      {"nothing denied, everything read", {}, 0},
      {"something denied", {.wouldDeny = true}, 1},
      {"unreadable input, nothing denied", {.unread = Unread::kInput}, 2},
      {"unreadable input wins over a denial", {.wouldDeny = true, .unread = Unread::kInput}, 2},
      {"part of the cluster unreachable, nothing denied", {.unread = Unread::kUnreachable}, 2},
      {"a denial wins over an unreachable part",
       {.wouldDeny = true, .unread = Unread::kUnreachable},
       1},
  };
  for (const auto& c : cases) EXPECT_EQ(ExitStatusOf(c.run), c.want) << c.name;
}

TEST(ExitStatus, OnlyDenyModeFailsARun) {
  EXPECT_TRUE(FailsRun(policy::Mode::kDeny));
  EXPECT_FALSE(FailsRun(policy::Mode::kWarn));
  EXPECT_FALSE(FailsRun(policy::Mode::kAudit));
}

}  // namespace
}  // namespace gpugate::cli
