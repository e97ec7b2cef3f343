#include "transport/http_message.h"

#include <gtest/gtest.h>

namespace gpugate::transport {
namespace {

TEST(QueryParam, FindsAndDecodes) {
  struct Case {
    const char* query;
    const char* name;
    std::optional<std::string> value;
  } cases[] = {
      {"timeout=5s", "timeout", "5s"},
      {"a=1&timeout=10s&b=2", "timeout", "10s"},
      {"namespace=team%2Da", "namespace", "team-a"},
      {"namespace=a+b", "namespace", "a b"},
      {"namespace=%zz", "namespace", "%zz"},
      {"namespace=%4", "namespace", "%4"},
      {"namespace", "namespace", ""},
      {"namespace=", "namespace", ""},
      {"names=x", "namespace", std::nullopt},
      {"", "timeout", std::nullopt},
      {"time%6Fut=1s", "timeout", "1s"},
      {"timeout=1s&timeout=2s", "timeout", "1s"},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(QueryParam(c.query, c.name), c.value) << c.query;
  }
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

TEST(WriteResponse, FramesStatusHeadersAndBody) {
  Response res;
  res.Set(405, "use POST\n");
  res.headers.emplace_back("Allow", "POST");
  std::string out = "earlier";
  WriteResponse(res, /*close=*/true, /*headOnly=*/false, out);
  EXPECT_EQ(out,
            "earlierHTTP/1.1 405 Method Not Allowed\r\nContent-Type: text/plain\r\n"
            "Content-Length: 9\r\nConnection: close\r\nAllow: POST\r\n\r\nuse POST\n");

  Response ok;
  ok.Set(200, "{}", "application/json");
  out.clear();
  WriteResponse(ok, false, /*headOnly=*/true, out);
  EXPECT_EQ(out, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n");
}

}  // namespace
}  // namespace gpugate::transport
