#include "common/text_table.h"

#include <gtest/gtest.h>

namespace gpugate {
namespace {

TEST(TextTable, PadsEveryColumnButTheLastAndTrimsTrailingSpaces) {
  EXPECT_EQ(RenderTable({"NAMESPACE", "MODE", "MESSAGE"},
                        {{"team-a", "deny", "a long message"}, {"t", "warn", ""}}),
            "NAMESPACE   MODE   MESSAGE\n"
            "team-a      deny   a long message\n"
            "t           warn\n");
}

TEST(TextTable, AHeaderAloneWithoutRows) {
  EXPECT_EQ(RenderTable({"A", "B"}, {}), "A   B\n");
  EXPECT_EQ(RenderTable({"NAME", ""}, {{"x", "[##..]"}}), "NAME\nx      [##..]\n");
}

}  // namespace
}  // namespace gpugate
