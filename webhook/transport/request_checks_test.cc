#include "transport/request_checks.h"

#include <gtest/gtest.h>

namespace gpugate::transport {
namespace {

TEST(CheckBodyFraming, RefusesBodiesTheCapCannotBound) {
  struct Case {
    const char* method;
    bool contentLength, transferEncoding;
    int status;  // 0: accepted
  } cases[] = {
      {"POST", true, false, 0},     {"POST", false, false, 411}, {"POST", true, true, 411},
      {"POST", false, true, 411},   {"PUT", false, false, 411},  {"PATCH", false, false, 411},
      {"PRI", false, false, 411},   {"PUT", true, false, 0},     {"GET", false, false, 0},
      {"GET", false, true, 411},    {"DELETE", false, false, 0}, {"HEAD", false, false, 0},
      {"OPTIONS", false, false, 0},
  };
  for (const auto& c : cases) {
    auto refusal = CheckBodyFraming(c.method, c.contentLength, c.transferEncoding);
    SCOPED_TRACE(std::string(c.method) + " length=" + std::to_string(c.contentLength) +
                 " chunked=" + std::to_string(c.transferEncoding));
    EXPECT_EQ(refusal ? refusal->status : 0, c.status);
  }
  EXPECT_EQ(CheckBodyFraming("POST", false, false)->message,
            "a request body needs a Content-Length\n");
  EXPECT_EQ(CheckBodyFraming("POST", true, true)->message,
            "a request body needs a Content-Length; Transfer-Encoding is not accepted\n");
}

TEST(IsJsonMediaType, MatchesTheWholeTypeInAnyCase) {
  struct Case {
    const char* value;
    bool json;
  } cases[] = {
      {"application/json", true},
      {"Application/JSON", true},
      {"application/json; charset=utf-8", true},
      {"application/json;charset=UTF-8", true},
      {" application/json ", true},
      {"application/json-patch+json", false},
      {"application/jsonx", false},
      {"application/merge-patch+json", false},
      {"text/json", false},
      {"text/plain", false},
      {"", false},
      {";application/json", false},
  };
  for (const auto& c : cases) EXPECT_EQ(IsJsonMediaType(c.value), c.json) << c.value;
}

}  // namespace
}  // namespace gpugate::transport
