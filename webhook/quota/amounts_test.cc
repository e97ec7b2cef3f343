#include "quota/amounts.h"

#include <gtest/gtest.h>

#include <limits>

namespace gpugate::quota {
namespace {

TEST(AmountsFormatMilli, Table) {
  struct Case {
    int64_t milli;
    const char* want;
  } cases[] = {
      {0, "0"},
      {1, "0.001"},
      {10, "0.01"},
      {500, "0.5"},
      {1000, "1"},
      {1250, "1.25"},
      {2000, "2"},
      {4010, "4.01"},
      {123456789, "123456.789"},
      {-1500, "-1.5"},
      {-7, "-0.007"},
      {std::numeric_limits<int64_t>::max(), "9223372036854775.807"},
      {std::numeric_limits<int64_t>::min(), "-9223372036854775.808"},
  };
  for (const auto& c : cases) EXPECT_EQ(FormatMilli(c.milli), c.want) << c.milli;
}

TEST(AmountsParseMilli, Accepts) {
  struct Case {
    const char* text;
    int64_t want;
  } cases[] = {
      {"0", 0},      {"4", 4000},     {"0.01", 10},
      {"0.001", 1},  {"2.5", 2500},   {"1.250", 1250},
      {"007", 7000}, {"400", 400000}, {"9223372036854775.807", std::numeric_limits<int64_t>::max()},
  };
  for (const auto& c : cases) {
    auto got = ParseMilli(c.text);
    ASSERT_TRUE(got.has_value()) << c.text << ": " << got.error().message;
    EXPECT_EQ(*got, c.want) << c.text;
    EXPECT_EQ(ParseMilli(FormatMilli(c.want)).value(), c.want) << "round trip of " << c.text;
  }
}

TEST(AmountsParseMilli, Refuses) {
  struct Case {
    const char* text;
    const char* want;
  } cases[] = {
      {"", R"("": want a non-negative decimal such as 4 or 0.01)"},
      {".", R"(".": want a non-negative decimal such as 4 or 0.01)"},
      {".5", R"(".5": want a non-negative decimal such as 4 or 0.01)"},
      {"1.", R"("1.": want a non-negative decimal such as 4 or 0.01)"},
      {"-1", R"("-1": want a non-negative decimal such as 4 or 0.01)"},
      {"+1", R"("+1": want a non-negative decimal such as 4 or 0.01)"},
      {"1e3", R"("1e3": want a non-negative decimal such as 4 or 0.01)"},
      {"1.2.3", R"("1.2.3": want a non-negative decimal such as 4 or 0.01)"},
      {" 1", R"(" 1": want a non-negative decimal such as 4 or 0.01)"},
      {"100m", R"("100m": want a non-negative decimal such as 4 or 0.01)"},
      {"0.0001", R"("0.0001": more than three fractional digits)"},
      {"9223372036854775.808", R"("9223372036854775.808": too large)"},
      {"99999999999999999999", R"("99999999999999999999": too large)"},
      {"a\nb", R"("a\nb": want a non-negative decimal such as 4 or 0.01)"},
  };
  for (const auto& c : cases) {
    auto got = ParseMilli(c.text);
    ASSERT_FALSE(got.has_value()) << c.text << " parsed as " << *got;
    EXPECT_EQ(got.error().message, c.want);
  }
}

TEST(AmountsFormatAmounts, Table) {
  struct Case {
    Amounts amounts;
    const char* want;
  } cases[] = {
      {{}, ""},
      {{{"nvidia.com/gpu", 1000}}, "nvidia.com/gpu=1"},
      {{{"tencent.com/vcuda-core", 50000}, {"nvidia.com/gpu", 1000}},
       "nvidia.com/gpu=1,tencent.com/vcuda-core=50"},
      {{{"gpu-equivalents", 1500}, {"amd.com/gpu", 0}, {"nvidia.com/gpu", 1000}},
       "gpu-equivalents=1.5,nvidia.com/gpu=1"},
      {{{"amd.com/gpu", 0}}, ""},
  };
  for (const auto& c : cases) EXPECT_EQ(FormatAmounts(c.amounts), c.want);
}

}  // namespace
}  // namespace gpugate::quota
