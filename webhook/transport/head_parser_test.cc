// The incremental head parser: the framing table (each head parsed at once and dribbled a byte
// at a time, alike), and the work it does when a head arrives a byte at a time.
#include "transport/head_parser.h"

#include <gtest/gtest.h>

#include <string>

namespace gpugate::transport {
namespace {

using State = HeadParse::State;

// Everything a parse says, as text: two parses agree exactly when their renderings do.
std::string Render(const HeadParse& p) {
  switch (p.state) {
    case State::kIncomplete:
      return "incomplete";
    case State::kRefused:
      return "refused " + std::to_string(p.status) + " " + p.reason;
    case State::kComplete:
      break;
  }
  const RequestHead& h = p.head;
  std::string out = "complete " + std::to_string(h.headBytes) + " " +
                    std::to_string(h.contentLength) + (h.keepAlive ? " keep-alive" : " close") +
                    (h.expectContinue ? " continue" : "") + "\n" + std::string(h.method) + " " +
                    std::string(h.path) + " ? " + std::string(h.query) + "\n";
  for (const auto& [name, value] : h.headers) {
    out += std::string(name) + ": " + std::string(value) + "\n";
  }
  return out;
}

// How `bytes` parse arriving one at a time, as from a peer sending one byte per TLS record: the
// parser is fed the growing prefix, each time from a fresh buffer (a connection's buffer moves
// as it grows). Rendered while the buffer the head's views point into is alive.
std::string RenderDribbled(std::string_view bytes, const HeadLimits& limits,
                           uint64_t* scanned = nullptr) {
  HeadParser parser(limits);
  std::string received;
  for (char c : bytes) {
    received = received + c;
    if (parser.Feed(received) != State::kIncomplete) break;
  }
  if (scanned) *scanned = parser.scanned();
  HeadParse out;
  out.state = parser.state();
  if (out.state == State::kComplete) out.head = parser.Head(received);
  if (out.state == State::kRefused) {
    out.status = parser.status();
    out.reason = parser.reason();
  }
  return Render(out);
}

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
    // Dribbled one byte per call, the head frames or is refused the same way.
    EXPECT_EQ(RenderDribbled(c.bytes, HeadLimits{}), Render(p));
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

// A head with `headers` header lines of about 600 bytes each besides Host and Content-Length.
std::string BigHead(int headers) {
  std::string s = "POST /validate HTTP/1.1\r\nHost: gpugate\r\nContent-Length: 2\r\n";
  for (int i = 0; i < headers; ++i) {
    s += "X-Padding-" + std::to_string(i) + ": " + std::string(580, 'p') + "\r\n";
  }
  return s + "\r\n";
}

// The work a head costs is linear in its size however it arrives: dribbled one byte per call,
// the parser examines exactly the bytes it examines when the head comes at once, at most twice
// the head's size (each byte while looking for its line's end, then each line once), and never
// a byte of what follows the head. The rescanning parser this replaced examined n²/2 bytes for a
// head of n dribbled bytes.
TEST(HeadParser, ScansADribbledHeadNoMoreThanOneSentAtOnce) {
  for (int headers : {1, 10, 90}) {
    const std::string head = BigHead(headers);
    SCOPED_TRACE(std::to_string(head.size()) + " bytes");
    ASSERT_LT(head.size(), HeadLimits{}.maxHeadBytes);
    HeadParser atOnce(HeadLimits{});
    const std::string withBody = head + "{}GET /next HTTP/1.1\r\n";
    ASSERT_EQ(atOnce.Feed(withBody), State::kComplete);
    EXPECT_EQ(atOnce.Head(withBody).headBytes, head.size());

    uint64_t dribbled = 0;
    EXPECT_TRUE(RenderDribbled(withBody, HeadLimits{}, &dribbled).starts_with("complete"));
    EXPECT_EQ(dribbled, atOnce.scanned());
    EXPECT_GE(atOnce.scanned(), head.size());
    EXPECT_LE(atOnce.scanned(), 2 * head.size());
  }
}

// A CR must be followed by LF (RFC 9112 §2.2): a bare one is refused when the byte after it
// arrives, whatever follows. 32 KiB of bare CRs dribbled one per record cost the rescanning
// parser seconds of CPU and were only cut off by the header deadline.
TEST(HeadParser, RefusesABareCrOrLfWhenItArrives) {
  const struct {
    const char* name;
    std::string bytes;
    size_t refusedAt;  // bytes received when the refusal comes
    const char* reason;
  } cases[] = {
      {"32 KiB of CRs after the request line", "GET / HTTP/1.1\r\n" + std::string(32 << 10, '\r'),
       18, "a CR not followed by LF"},
      {"a CR inside a header value", "GET / HTTP/1.1\r\nHost: a\rb: c\r\n\r\n", 25,
       "a CR not followed by LF"},
      {"a CR in the request line", "GET /\r HTTP/1.1\r\n\r\n", 7, "a CR not followed by LF"},
      {"a LF alone ending a line", "GET / HTTP/1.1\nHost: a\r\n\r\n", 15, "a LF without its CR"},
      {"a LF alone in a value", "GET / HTTP/1.1\r\nX: a\nb\r\n\r\n", 21, "a LF without its CR"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    HeadParser parser(HeadLimits{});
    size_t received = 0;
    while (received < c.bytes.size() &&
           parser.Feed(std::string_view(c.bytes).substr(0, ++received)) == State::kIncomplete) {
    }
    ASSERT_EQ(parser.state(), State::kRefused);
    EXPECT_EQ(received, c.refusedAt);
    EXPECT_EQ(parser.status(), 400);
    EXPECT_TRUE(parser.reason().starts_with(c.reason)) << parser.reason();
    EXPECT_LE(parser.scanned(), 2 * received);
  }
}

TEST(HeadParser, ResetsForTheNextRequestOnTheConnection) {
  HeadParser parser(HeadLimits{});
  const std::string first = "GET /a HTTP/1.1\r\nHost: x\r\n\r\n";
  ASSERT_EQ(parser.Feed(first), State::kComplete);
  EXPECT_EQ(parser.Head(first).path, "/a");
  parser.Reset();
  EXPECT_EQ(parser.scanned(), 0u);
  const std::string second = "POST /b?c=d HTTP/1.0\r\nContent-Length: 3\r\n\r\nabc";
  ASSERT_EQ(parser.Feed(second), State::kComplete);
  const RequestHead& h = parser.Head(second);
  EXPECT_EQ(h.method, "POST");
  EXPECT_EQ(h.path, "/b");
  EXPECT_EQ(h.query, "c=d");
  EXPECT_EQ(h.contentLength, 3u);
  EXPECT_FALSE(h.keepAlive);
  ASSERT_EQ(h.headers.size(), 1u);
  EXPECT_EQ(h.headers[0].first, "Content-Length");
}

}  // namespace
}  // namespace gpugate::transport
