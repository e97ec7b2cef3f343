#include "transport/http_message.h"

#include <gtest/gtest.h>

namespace gpugate::transport {
namespace {

using State = HeadParse::State;

// Request heads and what the server makes of them: framed (and how), waiting for more bytes,
// or refused with a status before any body is read.
TEST(ParseRequestHead, FramesOrRefusesEachHead) {
  struct Case {
    const char* name;
    std::string bytes;
    State state;
    int status = 0;            // kRefused
    const char* reason = "";   // kRefused: contained in the reason
    size_t contentLength = 0;  // kComplete
    bool keepAlive = true;     // kComplete
  } cases[] = {
      {"a review POST",
       "POST /validate?timeout=5s HTTP/1.1\r\nHost: x\r\nContent-Length: 12\r\n\r\n",
       State::kComplete, 0, "", 12},
      {"a GET without a body", "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", State::kComplete},
      {"headers not finished", "POST /validate HTTP/1.1\r\nHost: x\r\nContent-Len",
       State::kIncomplete},
      {"nothing yet", "", State::kIncomplete},
      {"Connection: close", "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
       State::kComplete, 0, "", 0, false},
      {"Connection lists close among others",
       "GET / HTTP/1.1\r\nHost: x\r\nConnection: TE, Close\r\n\r\n", State::kComplete, 0, "", 0,
       false},
      {"HTTP/1.0 closes by default", "GET / HTTP/1.0\r\n\r\n", State::kComplete, 0, "", 0, false},
      {"HTTP/1.0 with keep-alive", "GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
       State::kComplete, 0, "", 0, true},
      {"duplicate equal Content-Lengths",
       "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\n",
       State::kComplete, 0, "", 2},
      {"conflicting Content-Lengths",
       "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n",
       State::kRefused, 400, "conflicting"},
      {"negative Content-Length", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n",
       State::kRefused, 400, "Content-Length"},
      {"Content-Length with junk", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 12a\r\n\r\n",
       State::kRefused, 400, "Content-Length"},
      {"Content-Length past 64 bits",
       "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999999\r\n\r\n",
       State::kRefused, 400, "Content-Length"},
      {"body over the cap", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 8388609\r\n\r\n",
       State::kRefused, 413, "over the limit of 8388608"},
      {"body at the cap", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 8388608\r\n\r\n",
       State::kComplete, 0, "", 8388608},
      {"chunked", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n",
       State::kRefused, 411, "Transfer-Encoding is not accepted"},
      {"chunked with a length too",
       "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n",
       State::kRefused, 411, "Transfer-Encoding"},
      {"chunked GET", "GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n",
       State::kRefused, 411, "Transfer-Encoding"},
      {"POST without a length", "POST /validate HTTP/1.1\r\nHost: x\r\n\r\n", State::kRefused, 411,
       "needs a Content-Length"},
      {"PUT without a length", "PUT /x HTTP/1.1\r\nHost: x\r\n\r\n", State::kRefused, 411,
       "Content-Length"},
      {"PATCH without a length", "PATCH /x HTTP/1.1\r\nHost: x\r\n\r\n", State::kRefused, 411,
       "Content-Length"},
      {"DELETE without a length", "DELETE /x HTTP/1.1\r\nHost: x\r\n\r\n", State::kComplete},
      {"not HTTP", "HELLO\r\n\r\n", State::kRefused, 400, "request line"},
      {"extra space in the request line", "GET  / HTTP/1.1\r\nHost: x\r\n\r\n", State::kRefused,
       400, "request"},
      {"absolute-form target", "GET http://x/ HTTP/1.1\r\nHost: x\r\n\r\n", State::kRefused, 400,
       "target"},
      {"control byte in the target", std::string("GET /\x01 HTTP/1.1\r\nHost: x\r\n\r\n"),
       State::kRefused, 400, "target"},
      {"HTTP/2 preface", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", State::kRefused, 400, "target"},
      {"HTTP/1.2", "GET / HTTP/1.2\r\n\r\n", State::kRefused, 505, "HTTP/1.1"},
      {"9 KB target", "GET /" + std::string(9000, 'v') + " HTTP/1.1\r\nHost: x\r\n\r\n",
       State::kRefused, 414, "too long"},
      {"header without a colon", "GET / HTTP/1.1\r\nHost x\r\n\r\n", State::kRefused, 400,
       "header"},
      {"folded header line", "GET / HTTP/1.1\r\nHost: x\r\nX: a\r\n b\r\n\r\n", State::kRefused,
       400, "header"},
      {"space before the colon", "GET / HTTP/1.1\r\nHost : x\r\n\r\n", State::kRefused, 400,
       "header"},
      {"control byte in a value", std::string("GET / HTTP/1.1\r\nHost: x\r\nX: a\x01\r\n\r\n"),
       State::kRefused, 400, "header value"},
      {"100 KB header, finished",
       "GET / HTTP/1.1\r\nHost: x\r\nX: " + std::string(100'000, 'h') + "\r\n\r\n", State::kRefused,
       431, "too large"},
      {"100 KB header, unfinished", "GET / HTTP/1.1\r\nHost: x\r\nX: " + std::string(100'000, 'h'),
       State::kRefused, 431, "too large"},
      {"101 headers",
       [] {
         std::string s = "GET / HTTP/1.1\r\nHost: x\r\n";
         for (int i = 0; i < 101; ++i) s += "X-" + std::to_string(i) + ": y\r\n";
         return s + "\r\n";
       }(),
       State::kRefused, 431, "too many"},
      {"Expect: 100-continue",
       "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nExpect: 100-continue\r\n\r\n",
       State::kComplete, 0, "", 1},
      {"HTTP/1.1 without a Host", "GET / HTTP/1.1\r\nX: y\r\n\r\n", State::kRefused, 400,
       "needs a Host header"},
      {"two Host headers", "GET / HTTP/1.1\r\nHost: a\r\nHost: a\r\n\r\n", State::kRefused, 400,
       "more than one Host"},
      {"two Host headers, any case", "GET / HTTP/1.1\r\nhost: a\r\nHOST: b\r\n\r\n",
       State::kRefused, 400, "more than one Host"},
      {"a Host with a path", "GET / HTTP/1.1\r\nHost: a/b\r\n\r\n", State::kRefused, 400,
       "malformed Host"},
      {"a Host with a space", "GET / HTTP/1.1\r\nHost: a b\r\n\r\n", State::kRefused, 400,
       "malformed Host"},
      {"an empty Host", "GET / HTTP/1.1\r\nHost:\r\n\r\n", State::kComplete},
      {"a Host with a port", "GET / HTTP/1.1\r\nHost: gpugate.svc:443\r\n\r\n", State::kComplete},
      {"an IPv6 Host", "GET / HTTP/1.1\r\nHost: [::1]:8443\r\n\r\n", State::kComplete},
      {"HTTP/1.0 without a Host", "GET / HTTP/1.0\r\n\r\n", State::kComplete, 0, "", 0, false},
      {"HTTP/1.0 with two Hosts", "GET / HTTP/1.0\r\nHost: a\r\nHost: b\r\n\r\n", State::kRefused,
       400, "more than one Host"},
      {"another expectation",
       "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nExpect: magic\r\n\r\n", State::kRefused,
       417, "Expect"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    HeadParse p = ParseRequestHead(c.bytes, HeadLimits{});
    ASSERT_EQ(p.state, c.state) << p.status << " " << p.reason;
    if (c.state == State::kRefused) {
      EXPECT_EQ(p.status, c.status);
      EXPECT_NE(p.reason.find(c.reason), std::string::npos) << p.reason;
      EXPECT_EQ(p.reason.back(), '\n');
      EXPECT_FALSE(ReasonPhrase(p.status).empty());
    }
    if (c.state == State::kComplete) {
      EXPECT_EQ(p.head.contentLength, c.contentLength);
      EXPECT_EQ(p.head.keepAlive, c.keepAlive);
      EXPECT_EQ(p.head.headBytes, c.bytes.size());
    }
  }
}

TEST(ParseRequestHead, ViewsTheRequestLineAndHeadersInPlace) {
  const std::string bytes =
      "POST /validate?timeout=5s&x=1 HTTP/1.1\r\nHost: gpugate\r\ncontent-type:  application/json "
      "\r\nContent-Length: 2\r\n\r\n{}GET /next";
  HeadParse p = ParseRequestHead(bytes, HeadLimits{});
  ASSERT_EQ(p.state, State::kComplete);
  EXPECT_EQ(p.head.method, "POST");
  EXPECT_EQ(p.head.path, "/validate");
  EXPECT_EQ(p.head.query, "timeout=5s&x=1");
  EXPECT_EQ(p.head.Header("Content-Type"), "application/json");
  EXPECT_EQ(p.head.Header("HOST"), "gpugate");
  EXPECT_TRUE(p.head.HasHeader("content-length"));
  EXPECT_FALSE(p.head.HasHeader("Expect"));
  EXPECT_EQ(p.head.Header("Expect"), "");
  EXPECT_EQ(bytes.substr(p.head.headBytes, p.head.contentLength), "{}");
}

// RFC 9110 §10.1.1: a server ignores a 100-continue expectation in an HTTP/1.0 request.
TEST(ParseRequestHead, ExpectsContinueOnlyFromHttp11) {
  for (const auto& [version, expects] : {std::pair{"HTTP/1.1", true}, {"HTTP/1.0", false}}) {
    const std::string bytes = "POST / " + std::string(version) +
                              "\r\nHost: x\r\nContent-Length: 1\r\nExpect: 100-continue\r\n\r\n";
    HeadParse p = ParseRequestHead(bytes, HeadLimits{});
    ASSERT_EQ(p.state, State::kComplete) << version;
    EXPECT_EQ(p.head.expectContinue, expects) << version;
  }
}

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
