#include "common/rfc3339.h"

#include <gtest/gtest.h>

namespace gpugate {
namespace {

// What the parser refuses besides malformed text (cluster/gpu_quota_record_test.cc has the forms
// it reads): fields out of their range, which timegm would silently carry into the next one, and
// times WallClock's 64-bit nanoseconds cannot hold with room to spare.
TEST(Rfc3339, RefusesFieldsAndTimesOutOfRange) {
  for (const char* text :
       {"2026-13-01T00:00:00Z", "2026-00-01T00:00:00Z", "2026-11-32T00:00:00Z",
        "2026-11-27T24:00:00Z", "2026-11-27T20:60:00Z", "2026-11-27T20:00:61Z",
        "2200-01-01T00:00:00Z", "1899-12-31T23:59:59Z", "9999-12-31T23:59:59Z"}) {
    Result<WallClock::time_point> t = ParseRfc3339(text);
    EXPECT_FALSE(t) << text << " read as " << FormatRfc3339(*t);
  }
  for (const char* text : {"2191-01-01T00:00:00Z", "1900-01-01T00:00:00Z"}) {
    Result<WallClock::time_point> t = ParseRfc3339(text);
    ASSERT_TRUE(t) << text << ": " << t.error().message;
    EXPECT_EQ(FormatRfc3339(*t), std::string(text).substr(0, 19) + ".000Z");
  }
}

}  // namespace
}  // namespace gpugate
