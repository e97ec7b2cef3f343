#include "common/go_duration.h"

#include <gtest/gtest.h>

namespace gpugate {
namespace {

using namespace std::chrono_literals;

struct Case {
  std::string_view text;
  int64_t micros;  // -1: an error whose message is `error`
  std::string_view error = {};
};

TEST(ParseGoDurationTest, Table) {
  const Case cases[] = {
      {"5s", 5'000'000},
      {"10s", 10'000'000},
      {"30s", 30'000'000},
      {"500ms", 500'000},
      {"1m30s", 90'000'000},
      {"1.5s", 1'500'000},
      {"2h", 7'200'000'000},
      {"0s", 0},
      {"0", 0},
      {"+3s", 3'000'000},
      {"250us", 250},
      {"250\xc2\xb5s", 250},
      {"1500ns", 1},
      {"1h2m3s4ms", 3'723'004'000},
      {"", -1, "empty"},
      {"5", -1, "missing or unknown unit (ns, us, ms, s, m, h)"},
      {"-5s", -1, "negative"},
      {"5x", -1, "missing or unknown unit (ns, us, ms, s, m, h)"},
      {"s", -1, "expected a number, e.g. 5s"},
      {".s", -1, "expected a number, e.g. 5s"},
      {"5s ", -1, "expected a number, e.g. 5s"},
      {"25h", -1, "longer than a day"},
      {"99999999999999999999s", -1, "too long"},
      {"1e3s", -1, "missing or unknown unit (ns, us, ms, s, m, h)"},
  };
  for (const Case& c : cases) {
    auto got = ParseGoDuration(c.text);
    if (c.micros >= 0) {
      ASSERT_TRUE(got.has_value()) << c.text << ": " << got.error().message;
      EXPECT_EQ(got->count(), c.micros) << c.text;
    } else {
      ASSERT_FALSE(got.has_value()) << c.text << " parsed as " << got->count();
      EXPECT_EQ(got.error().message, c.error) << c.text;
    }
  }
}

TEST(ParseGoDurationTest, LongerCeiling) {
  const Case cases[] = {
      {"720h", 2'592'000'000'000},
      {"8784h", 31'622'400'000'000},
      {"10m", 600'000'000},
      {"8785h", -1, "longer than 8784h"},
      {"99999999999999999999s", -1, "too long"},
  };
  for (const Case& c : cases) {
    auto got = ParseGoDuration(c.text, 8784h);
    if (c.micros >= 0) {
      ASSERT_TRUE(got.has_value()) << c.text << ": " << got.error().message;
      EXPECT_EQ(got->count(), c.micros) << c.text;
    } else {
      ASSERT_FALSE(got.has_value()) << c.text << " parsed as " << got->count();
      EXPECT_EQ(got.error().message, c.error) << c.text;
    }
  }
}

TEST(FormatGoDurationTest, ShortestExactSpelling) {
  const struct {
    std::chrono::milliseconds d;
    std::string_view text;
  } cases[] = {
      {0ms, "0s"},  {1ms, "1ms"},   {250ms, "250ms"}, {1500ms, "1500ms"}, {10s, "10s"},
      {2min, "2m"}, {90s, "1m30s"}, {1h, "1h"},       {3723s, "1h2m3s"},  {-5s, "-5s"},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(FormatGoDuration(c.d), c.text) << c.d.count() << " ms";
    // What it writes reads back as the same duration.
    if (c.d >= 0ms) {
      auto back = ParseGoDuration(FormatGoDuration(c.d));
      ASSERT_TRUE(back.has_value()) << c.text;
      EXPECT_EQ(*back, c.d) << c.text;
    }
  }
}

}  // namespace
}  // namespace gpugate
