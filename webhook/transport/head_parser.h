// A request head parsed as its bytes arrive. Each Feed looks only at the bytes received since the
// last one, for line ends, and parses each line once, when its CRLF arrives: a head dribbled one
// byte per TLS record costs what it costs sent at once, linear in its size. A byte that makes the
// head unframeable (a CR not followed by LF, a LF without its CR, a malformed request line or
// header line) refuses the head when it arrives, not when the blank line does. Pure code over
// bytes: every framing rule is tested without a socket (head_parser_test.cc) and fuzzed
// (fuzz/http_head_fuzzer.cc).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "transport/http_message.h"

namespace gpugate::transport {

struct HeadLimits {
  size_t maxHeadBytes = 64 << 10;   // request line and headers; over it: 431
  size_t maxHeaders = 100;          // over it: 431
  size_t maxTargetBytes = 8 << 10;  // path and query; over it: 414
  size_t maxBodyBytes = 8 << 20;    // a larger Content-Length: 413, the body never read
};

// How the bytes received so far stand.
struct HeadParse {
  enum class State { kIncomplete, kComplete, kRefused };
  State state = State::kIncomplete;
  RequestHead head;    // kComplete
  int status = 0;      // kRefused: the status to answer before closing the connection
  std::string reason;  // kRefused: plain text, ending in a newline
};

// What it refuses, and with which status: a malformed request line, method or target (400), a
// target over maxTargetBytes (414), an HTTP version other than 1.0/1.1 (505), a malformed header
// line or value, including obsolete line folding (400), a head over maxHeadBytes or with more
// than maxHeaders headers (431), an HTTP/1.1 request without a Host header, two Host headers or
// a malformed one (400, RFC 9112 §3.2), a Transfer-Encoding (411: every caller gpugate serves
// sends a Content-Length), a body-carrying method without a Content-Length (411), conflicting or
// malformed Content-Lengths (400), a body over maxBodyBytes (413), an Expect other than
// 100-continue (417). A 100-continue from an HTTP/1.0 client is ignored (RFC 9110 §10.1.1).
//
// One parser per connection, Reset between requests; not thread-safe.
class HeadParser {
 public:
  using State = HeadParse::State;

  explicit HeadParser(const HeadLimits& limits) : limits_(limits) {}

  // `bytes` holds everything received for this request so far, from its first byte: what the
  // previous call had (the buffer may have moved since), then more. Looks at the bytes after
  // those already seen, up to the end of the head (what follows it, a body or a pipelined
  // request, is never looked at). kIncomplete until the head ends or is refused; then the same
  // state for every later call.
  State Feed(std::string_view bytes);
  State state() const { return state_; }
  // kComplete: the head, its views pointing into `bytes`, the bytes last fed wherever they are
  // now. Valid until the next call to Head or Reset.
  const RequestHead& Head(std::string_view bytes);
  // kRefused: the status to answer before closing the connection, and the reason (plain text,
  // ending in a newline).
  int status() const { return status_; }
  const std::string& reason() const { return reason_; }
  // Bytes examined since Reset: each byte once while looking for the end of its line, and each
  // complete line once more when it is parsed. At most twice the head's size.
  uint64_t scanned() const { return scanned_; }
  // Ready for the next request on the connection.
  void Reset();

 private:
  struct Span {  // a part of the head, as offsets from its first byte
    uint32_t at = 0;
    uint32_t size = 0;
  };
  struct Field {
    Span name;
    Span value;
  };

  Span SpanOf(std::string_view part) const;
  void EndLine(std::string_view line);
  void ParseRequestLine(std::string_view line);
  void ParseField(std::string_view line);
  void Finish();
  void Refuse(int status, std::string_view reason);

  const HeadLimits limits_;
  State state_ = State::kIncomplete;
  const char* base_ = nullptr;  // the bytes of the current Feed
  size_t pos_ = 0;              // the next byte to look at
  size_t lineStart_ = 0;
  bool cr_ = false;  // the byte before pos_ is a CR, which an LF must follow
  bool requestLine_ = true;
  Span method_;
  Span target_;
  bool http11_ = true;
  std::vector<Field> fields_;
  int hosts_ = 0;
  bool hasLength_ = false;
  size_t contentLength_ = 0;
  bool keepAlive_ = true;
  bool expectContinue_ = false;
  int status_ = 0;
  std::string reason_;
  uint64_t scanned_ = 0;
  RequestHead head_;  // built by Head(); reused, so its header list keeps its capacity
};

// The head at the start of `bytes`, parsed in one Feed: for tests and the fuzz target.
HeadParse ParseRequestHead(std::string_view bytes, const HeadLimits& limits);

}  // namespace gpugate::transport
