#include "transport/http_message.h"

#include <charconv>

namespace gpugate::transport {
namespace {

char Lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool EqualsIgnoringCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (Lower(a[i]) != Lower(b[i])) return false;
  }
  return true;
}

std::string_view TrimSpace(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// RFC 9110 token characters, which method and header names are made of.
bool IsTokenChar(char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

bool IsToken(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!IsTokenChar(c)) return false;
  }
  return true;
}

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

// Whether a comma-separated header value lists `token` (Connection: keep-alive, Upgrade).
bool ListsToken(std::string_view value, std::string_view token) {
  while (!value.empty()) {
    size_t comma = value.find(',');
    if (EqualsIgnoringCase(TrimSpace(value.substr(0, comma)), token)) return true;
    if (comma == std::string_view::npos) break;
    value.remove_prefix(comma + 1);
  }
  return false;
}

HeadParse Refuse(int status, std::string reason) {
  HeadParse p;
  p.state = HeadParse::State::kRefused;
  p.status = status;
  p.reason = std::move(reason) + "\n";
  return p;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  c = Lower(c);
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

std::string PercentDecode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '+') {
      out += ' ';
    } else if (s[i] == '%' && i + 2 < s.size() && HexValue(s[i + 1]) >= 0 &&
               HexValue(s[i + 2]) >= 0) {
      out += static_cast<char>(HexValue(s[i + 1]) * 16 + HexValue(s[i + 2]));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

}  // namespace

std::string_view RequestHead::Header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (EqualsIgnoringCase(key, name)) return value;
  }
  return {};
}

bool RequestHead::HasHeader(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (EqualsIgnoringCase(key, name)) return true;
  }
  return false;
}

HeadParse ParseRequestHead(std::string_view bytes, const HeadLimits& limits) {
  size_t end = bytes.find("\r\n\r\n");
  if (end == std::string_view::npos) {
    if (bytes.size() > limits.maxHeadBytes) return Refuse(431, "request headers too large");
    return {};
  }
  if (end + 4 > limits.maxHeadBytes) return Refuse(431, "request headers too large");

  HeadParse p;
  RequestHead& h = p.head;
  h.headBytes = end + 4;
  std::string_view rest = bytes.substr(0, end + 2);  // each line ends in CRLF

  // Request line: METHOD SP target SP HTTP/1.x
  size_t eol = rest.find("\r\n");
  std::string_view line = rest.substr(0, eol);
  rest.remove_prefix(eol + 2);
  size_t sp1 = line.find(' ');
  size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || line.find(' ', sp2 + 1) != std::string_view::npos) {
    return Refuse(400, "malformed request line");
  }
  h.method = line.substr(0, sp1);
  std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  std::string_view version = line.substr(sp2 + 1);
  if (!IsToken(h.method)) return Refuse(400, "malformed request method");
  if (target.empty() || target.front() != '/') return Refuse(400, "malformed request target");
  if (target.size() > limits.maxTargetBytes) return Refuse(414, "request target too long");
  for (char c : target) {
    if (static_cast<unsigned char>(c) <= ' ' || c == 0x7f) {
      return Refuse(400, "malformed request target");
    }
  }
  if (version == "HTTP/1.1") {
    h.keepAlive = true;
  } else if (version == "HTTP/1.0") {
    h.keepAlive = false;
  } else {
    return Refuse(505, "only HTTP/1.1 and HTTP/1.0 are served");
  }
  size_t q = target.find('?');
  h.path = target.substr(0, q);
  if (q != std::string_view::npos) h.query = target.substr(q + 1);

  bool hasLength = false;
  int hosts = 0;
  while (!rest.empty()) {
    eol = rest.find("\r\n");
    line = rest.substr(0, eol);
    rest.remove_prefix(eol + 2);
    size_t colon = line.find(':');
    if (colon == std::string_view::npos || !IsToken(line.substr(0, colon))) {
      return Refuse(400, "malformed header line");  // also obsolete line folding
    }
    std::string_view name = line.substr(0, colon);
    std::string_view value = TrimSpace(line.substr(colon + 1));
    for (char c : value) {
      if ((static_cast<unsigned char>(c) < ' ' && c != '\t') || c == 0x7f) {
        return Refuse(400, "malformed header value");
      }
    }
    if (h.headers.size() == limits.maxHeaders) return Refuse(431, "too many request headers");
    h.headers.emplace_back(name, value);

    if (EqualsIgnoringCase(name, "Content-Length")) {
      size_t n = 0;
      auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
      if (value.empty() || ec != std::errc() || ptr != value.data() + value.size()) {
        return Refuse(400, "malformed Content-Length");
      }
      if (hasLength && n != h.contentLength) return Refuse(400, "conflicting Content-Lengths");
      hasLength = true;
      h.contentLength = n;
    } else if (EqualsIgnoringCase(name, "Host")) {
      if (++hosts > 1) return Refuse(400, "more than one Host header");
      if (!IsHostValue(value)) return Refuse(400, "malformed Host header");
    } else if (EqualsIgnoringCase(name, "Transfer-Encoding")) {
      return Refuse(411,
                    "a request body needs a Content-Length; Transfer-Encoding is not accepted");
    } else if (EqualsIgnoringCase(name, "Connection")) {
      if (ListsToken(value, "close")) h.keepAlive = false;
      if (ListsToken(value, "keep-alive") && version == "HTTP/1.0") h.keepAlive = true;
    } else if (EqualsIgnoringCase(name, "Expect")) {
      if (!EqualsIgnoringCase(value, "100-continue")) return Refuse(417, "unsupported Expect");
      // RFC 9110 §10.1.1: a 1.0 client may not understand an interim answer; ignore it.
      h.expectContinue = version == "HTTP/1.1";
    }
  }
  // RFC 9112 §3.2: an HTTP/1.1 request names its host; HTTP/1.0 did not have to.
  if (hosts == 0 && version == "HTTP/1.1")
    return Refuse(400, "an HTTP/1.1 request needs a Host header");
  const bool carriesBody = h.method == "POST" || h.method == "PUT" || h.method == "PATCH";
  if (carriesBody && !hasLength) return Refuse(411, "a request body needs a Content-Length");
  if (h.contentLength > limits.maxBodyBytes) {
    return Refuse(413, "request body of " + std::to_string(h.contentLength) +
                           " bytes is over the limit of " + std::to_string(limits.maxBodyBytes));
  }
  p.state = HeadParse::State::kComplete;
  return p;
}

std::optional<std::string> QueryParam(std::string_view query, std::string_view name) {
  while (!query.empty()) {
    size_t amp = query.find('&');
    std::string_view pair = query.substr(0, amp);
    size_t eq = pair.find('=');
    if (PercentDecode(pair.substr(0, eq)) == name) {
      return eq == std::string_view::npos ? std::string() : PercentDecode(pair.substr(eq + 1));
    }
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return std::nullopt;
}

bool IsJsonMediaType(std::string_view contentType) {
  std::string_view type = contentType.substr(0, contentType.find(';'));
  return EqualsIgnoringCase(TrimSpace(type), "application/json");
}

std::string_view ReasonPhrase(int status) {
  switch (status) {
    case 100:
      return "Continue";
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 408:
      return "Request Timeout";
    case 411:
      return "Length Required";
    case 413:
      return "Payload Too Large";
    case 414:
      return "URI Too Long";
    case 415:
      return "Unsupported Media Type";
    case 417:
      return "Expectation Failed";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 503:
      return "Service Unavailable";
    case 504:
      return "Gateway Timeout";
    case 505:
      return "HTTP Version Not Supported";
    default:
      return "";
  }
}

void WriteResponse(const Response& res, bool close, bool headOnly, std::string& out) {
  std::string_view phrase = ReasonPhrase(res.status);
  out.reserve(out.size() + 160 + res.body.size());
  out += "HTTP/1.1 ";
  out += std::to_string(res.status);
  out += ' ';
  out += phrase.empty() ? std::string_view("Status") : phrase;
  out += "\r\nContent-Type: ";
  out += res.contentType;
  out += "\r\nContent-Length: ";
  out += std::to_string(res.body.size());
  if (close) out += "\r\nConnection: close";
  for (const auto& [name, value] : res.headers) {
    out += "\r\n";
    out += name;
    out += ": ";
    out += value;
  }
  out += "\r\n\r\n";
  if (!headOnly) out += res.body;
}

}  // namespace gpugate::transport
