#include "transport/request_deadline.h"

#include <gtest/gtest.h>

namespace gpugate::transport {
namespace {

struct Case {
  std::string_view text;
  int64_t micros;  // -1: an error whose message contains `error`
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
      {"5", -1, "unit"},
      {"-5s", -1, "negative"},
      {"5x", -1, "unit"},
      {"s", -1, "number"},
      {".s", -1, "number"},
      {"5s ", -1, "number"},
      {"25h", -1, "longer than a day"},
      {"99999999999999999999s", -1, "too long"},
      {"1e3s", -1, "unit"},
  };
  for (const Case& c : cases) {
    auto got = ParseGoDuration(c.text);
    if (c.micros >= 0) {
      ASSERT_TRUE(got.has_value()) << c.text << ": " << got.error().message;
      EXPECT_EQ(got->count(), c.micros) << c.text;
    } else {
      ASSERT_FALSE(got.has_value()) << c.text << " parsed as " << got->count();
      EXPECT_NE(got.error().message.find(c.error), std::string::npos)
          << c.text << ": " << got.error().message;
      EXPECT_EQ(got.error().message.rfind("timeout ", 0), 0u) << got.error().message;
    }
  }
}

}  // namespace
}  // namespace gpugate::transport
