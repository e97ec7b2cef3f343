#include "transport/head_parser.h"

#include <algorithm>
#include <charconv>

#include "transport/http_text.h"

namespace gpugate::transport {
namespace {

// RFC 3986's host and port characters (RFC 9112 §3.2: Host = uri-host [ ":" port ]): letters,
// digits, unreserved and sub-delims, '%' for escapes, ':' and the brackets of an IPv6 literal.
bool IsHostValue(std::string_view s) {
  for (char c : s) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              std::string_view("-._~%!$&'()*+,;=:[]").find(c) != std::string_view::npos;
    if (!ok) return false;
  }
  return true;
}

// Whether a comma-separated header value lists `token` (Connection: keep-alive, close).
bool ListsToken(std::string_view value, std::string_view token) {
  while (!value.empty()) {
    size_t comma = value.find(',');
    if (EqualsIgnoringCase(TrimSpace(value.substr(0, comma)), token)) return true;
    if (comma == std::string_view::npos) break;
    value.remove_prefix(comma + 1);
  }
  return false;
}

bool HasControlByte(std::string_view s, bool tabAllowed) {
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if ((u < ' ' && !(tabAllowed && c == '\t')) || u == 0x7f) return true;
  }
  return false;
}

}  // namespace

HeadParser::State HeadParser::Feed(std::string_view bytes) {
  if (state_ != State::kIncomplete) return state_;
  base_ = bytes.data();
  const size_t start = pos_;
  // A head byte at index maxHeadBytes or later would make the head too large: never look at one.
  const size_t end = std::min(bytes.size(), limits_.maxHeadBytes);
  while (pos_ < end && state_ == State::kIncomplete) {
    if (cr_) {
      cr_ = false;
      if (bytes[pos_++] != '\n') {
        Refuse(400, "a CR not followed by LF in the request head");
        break;
      }
      const std::string_view line = bytes.substr(lineStart_, pos_ - 2 - lineStart_);
      lineStart_ = pos_;
      EndLine(line);
      continue;
    }
    // Skip to the next CR or LF: the only bytes that end or break a line.
    const char* p = bytes.data() + pos_;
    const char* const stop = bytes.data() + end;
    while (p < stop && *p != '\r' && *p != '\n') ++p;
    pos_ = static_cast<size_t>(p - bytes.data());
    if (pos_ == end) break;
    if (*p == '\n') {
      ++pos_;
      Refuse(400, "a LF without its CR in the request head");
      break;
    }
    cr_ = true;
    ++pos_;
  }
  scanned_ += pos_ - start;
  if (state_ == State::kIncomplete && bytes.size() > limits_.maxHeadBytes) {
    Refuse(431, "request headers too large");
  }
  base_ = nullptr;
  return state_;
}

HeadParser::Span HeadParser::SpanOf(std::string_view part) const {
  return {static_cast<uint32_t>(part.data() - base_), static_cast<uint32_t>(part.size())};
}

void HeadParser::EndLine(std::string_view line) {
  scanned_ += line.size();
  if (requestLine_) {
    requestLine_ = false;
    ParseRequestLine(line);
  } else if (line.empty()) {
    Finish();
  } else {
    ParseField(line);
  }
}

// METHOD SP request-target SP HTTP-version, the target in origin form ("/path?query").
void HeadParser::ParseRequestLine(std::string_view line) {
  const size_t sp1 = line.find(' ');
  const size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || line.find(' ', sp2 + 1) != std::string_view::npos) {
    return Refuse(400, "malformed request line");
  }
  const std::string_view method = line.substr(0, sp1);
  const std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  const std::string_view version = line.substr(sp2 + 1);
  if (!IsToken(method)) return Refuse(400, "malformed request method");
  if (target.empty() || target.front() != '/') return Refuse(400, "malformed request target");
  if (target.size() > limits_.maxTargetBytes) return Refuse(414, "request target too long");
  for (char c : target) {
    if (static_cast<unsigned char>(c) <= ' ' || c == 0x7f) {
      return Refuse(400, "malformed request target");
    }
  }
  if (version == "HTTP/1.1") {
    http11_ = true;
  } else if (version == "HTTP/1.0") {
    http11_ = false;
  } else {
    return Refuse(505, "only HTTP/1.1 and HTTP/1.0 are served");
  }
  keepAlive_ = http11_;
  method_ = SpanOf(method);
  target_ = SpanOf(target);
}

void HeadParser::ParseField(std::string_view line) {
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos || !IsToken(line.substr(0, colon))) {
    return Refuse(400, "malformed header line");  // also obsolete line folding
  }
  const std::string_view name = line.substr(0, colon);
  const std::string_view value = TrimSpace(line.substr(colon + 1));
  if (HasControlByte(value, /*tabAllowed=*/true)) return Refuse(400, "malformed header value");
  if (fields_.size() == limits_.maxHeaders) return Refuse(431, "too many request headers");
  fields_.push_back({SpanOf(name), SpanOf(value)});

  if (EqualsIgnoringCase(name, "Content-Length")) {
    size_t n = 0;
    auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
    if (value.empty() || ec != std::errc() || ptr != value.data() + value.size()) {
      return Refuse(400, "malformed Content-Length");
    }
    if (hasLength_ && n != contentLength_) return Refuse(400, "conflicting Content-Lengths");
    hasLength_ = true;
    contentLength_ = n;
  } else if (EqualsIgnoringCase(name, "Host")) {
    if (++hosts_ > 1) return Refuse(400, "more than one Host header");
    if (!IsHostValue(value)) return Refuse(400, "malformed Host header");
  } else if (EqualsIgnoringCase(name, "Transfer-Encoding")) {
    return Refuse(411, "a request body needs a Content-Length; Transfer-Encoding is not accepted");
  } else if (EqualsIgnoringCase(name, "Connection")) {
    if (ListsToken(value, "close")) keepAlive_ = false;
    if (ListsToken(value, "keep-alive") && !http11_) keepAlive_ = true;
  } else if (EqualsIgnoringCase(name, "Expect")) {
    if (!EqualsIgnoringCase(value, "100-continue")) return Refuse(417, "unsupported Expect");
    // RFC 9110 §10.1.1: a 1.0 client may not understand an interim answer; ignore it.
    expectContinue_ = http11_;
  }
}

// The blank line: the rules about the head as a whole.
void HeadParser::Finish() {
  // RFC 9112 §3.2: an HTTP/1.1 request names its host; HTTP/1.0 did not have to.
  if (hosts_ == 0 && http11_) return Refuse(400, "an HTTP/1.1 request needs a Host header");
  const std::string_view method(base_ + method_.at, method_.size);
  const bool carriesBody = method == "POST" || method == "PUT" || method == "PATCH";
  if (carriesBody && !hasLength_) return Refuse(411, "a request body needs a Content-Length");
  if (contentLength_ > limits_.maxBodyBytes) {
    return Refuse(413, "request body of " + std::to_string(contentLength_) +
                           " bytes is over the limit of " + std::to_string(limits_.maxBodyBytes));
  }
  state_ = State::kComplete;
}

void HeadParser::Refuse(int status, std::string_view reason) {
  state_ = State::kRefused;
  status_ = status;
  reason_.assign(reason);
  reason_ += '\n';
}

const RequestHead& HeadParser::Head(std::string_view bytes) {
  auto view = [&](Span s) { return bytes.substr(s.at, s.size); };
  RequestHead& h = head_;
  h.method = view(method_);
  const std::string_view target = view(target_);
  const size_t q = target.find('?');
  h.path = target.substr(0, q);
  h.query = q == std::string_view::npos ? std::string_view() : target.substr(q + 1);
  h.headers.clear();
  for (const Field& f : fields_) h.headers.emplace_back(view(f.name), view(f.value));
  h.headBytes = pos_;
  h.contentLength = contentLength_;
  h.keepAlive = keepAlive_;
  h.expectContinue = expectContinue_;
  return h;
}

void HeadParser::Reset() {
  state_ = State::kIncomplete;
  pos_ = 0;
  lineStart_ = 0;
  cr_ = false;
  requestLine_ = true;
  method_ = {};
  target_ = {};
  http11_ = true;
  fields_.clear();
  hosts_ = 0;
  hasLength_ = false;
  contentLength_ = 0;
  keepAlive_ = true;
  expectContinue_ = false;
  status_ = 0;
  reason_.clear();
  scanned_ = 0;
}

HeadParse ParseRequestHead(std::string_view bytes, const HeadLimits& limits) {
  HeadParser parser(limits);
  HeadParse out;
  out.state = parser.Feed(bytes);
  if (out.state == HeadParse::State::kComplete) out.head = parser.Head(bytes);
  if (out.state == HeadParse::State::kRefused) {
    out.status = parser.status();
    out.reason = parser.reason();
  }
  return out;
}

}  // namespace gpugate::transport
