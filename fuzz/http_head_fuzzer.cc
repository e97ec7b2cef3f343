// Fuzzes the event transport's incremental HTTP/1.1 request-head parser
// (webhook/transport/head_parser.h) on the bytes a client has sent so far, and QueryParam on the
// query it finds. Every input is parsed under the default HeadLimits and under small ones (so the
// 431, 414 and 413 refusals run on short inputs), and checked:
//   - the state agrees with the bytes: kIncomplete only while there is no blank line and the
//     bytes fit maxHeadBytes; a refusal carries a status the server has a phrase for and a reason
//     ending in a newline;
//   - arrival does not matter: fed one byte at a time, the parser frames or refuses the input
//     exactly as it does fed at once, examines exactly as many bytes, at most twice the bytes it
//     was given, and stops at the end of the head;
//   - a framed head lies within the bytes: it ends at the first blank line, fits the limits, and
//     every view points into it; the path starts with '/';
//   - parsing is a function of the head alone: a copy parses the same, the head without what
//     follows it (a body, a pipelined request) parses the same, and tighter limits never accept
//     what looser ones refuse nor frame it differently;
//   - QueryParam returns no more bytes than the query has, and finds a plain first parameter.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "fuzz/fuzz_check.h"
#include "transport/head_parser.h"
#include "transport/http_message.h"
#include "transport/http_text.h"

namespace gpugate::transport {
namespace {

using State = HeadParse::State;

constexpr HeadLimits kDefaultLimits{};
constexpr HeadLimits kSmallLimits{
    .maxHeadBytes = 256, .maxHeaders = 4, .maxTargetBytes = 64, .maxBodyBytes = 100};

// Bytes as escaped text, so a failed check prints a head legibly.
std::string Escape(std::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    if (c == '\r') {
      out += "\\r";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\\') {
      out += "\\\\";
    } else if (c < ' ' || c >= 0x7f) {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

// Everything a parse says; two parses say the same exactly when their renderings are equal.
std::string Render(const HeadParse& p) {
  switch (p.state) {
    case State::kIncomplete:
      return "incomplete\n";
    case State::kRefused:
      return "refused " + std::to_string(p.status) + " " + Escape(p.reason) + "\n";
    case State::kComplete:
      break;
  }
  const RequestHead& h = p.head;
  std::string out = "complete: head " + std::to_string(h.headBytes) + ", body " +
                    std::to_string(h.contentLength) + (h.keepAlive ? ", keep-alive" : ", close") +
                    (h.expectContinue ? ", expect 100-continue" : "") + "\n" + Escape(h.method) +
                    " " + Escape(h.path) + " ? " + Escape(h.query) + "\n";
  for (const auto& [name, value] : h.headers) out += Escape(name) + ": " + Escape(value) + "\n";
  return out;
}

std::string What(std::string_view input, const HeadLimits& limits, const HeadParse& p) {
  return "input " + Escape(input) + "\nlimits head " + std::to_string(limits.maxHeadBytes) +
         " headers " + std::to_string(limits.maxHeaders) + " target " +
         std::to_string(limits.maxTargetBytes) + " body " + std::to_string(limits.maxBodyBytes) +
         "\n" + Render(p);
}

// Whether `view` lies within `buffer`. A field the head lacks may be a null view.
bool Inside(std::string_view view, std::string_view buffer) {
  if (view.data() == nullptr) return view.empty();
  const auto begin = reinterpret_cast<uintptr_t>(buffer.data());
  const auto at = reinterpret_cast<uintptr_t>(view.data());
  return at >= begin && at + view.size() <= begin + buffer.size();
}

void CheckQuery(std::string_view query) {
  for (std::string_view name : {"timeout", "namespace", ""}) {
    const std::optional<std::string> value = QueryParam(query, name);
    FUZZ_CHECK(!value || value->size() <= query.size(),
               Escape(query) + " [" + Escape(name) + "] = " + Escape(*value));
  }
  // The first parameter, written without escapes, is found with its value as written.
  const std::string_view first = query.substr(0, query.find('&'));
  const size_t eq = first.find('=');
  const std::string_view name = first.substr(0, eq);
  const std::string_view value = eq == std::string_view::npos ? "" : first.substr(eq + 1);
  if (!query.empty() && name.find_first_of("%+") == std::string_view::npos &&
      value.find_first_of("%+") == std::string_view::npos) {
    const std::optional<std::string> found = QueryParam(query, name);
    FUZZ_CHECK(found == std::optional<std::string>(value),
               Escape(query) + " [" + Escape(name) +
                   "] = " + (found ? Escape(*found) : std::string("nullopt")));
  }
}

void CheckRefusal(std::string_view input, const HeadLimits& limits, const HeadParse& p) {
  bool known = false;
  for (int status : {400, 411, 413, 414, 417, 431, 505}) known = known || p.status == status;
  FUZZ_CHECK(known, What(input, limits, p));
  FUZZ_CHECK(!ReasonPhrase(p.status).empty(), What(input, limits, p));
  FUZZ_CHECK(!p.reason.empty() && p.reason.back() == '\n', What(input, limits, p));
}

void CheckHead(std::string_view input, const HeadLimits& limits, const HeadParse& p) {
  const RequestHead& h = p.head;
  FUZZ_CHECK(h.headBytes >= 4 && h.headBytes <= input.size(), What(input, limits, p));
  FUZZ_CHECK(input.substr(h.headBytes - 4, 4) == "\r\n\r\n", What(input, limits, p));
  FUZZ_CHECK(h.headBytes == input.find("\r\n\r\n") + 4, What(input, limits, p));
  FUZZ_CHECK(h.headBytes <= limits.maxHeadBytes, What(input, limits, p));
  FUZZ_CHECK(h.headers.size() <= limits.maxHeaders, What(input, limits, p));
  FUZZ_CHECK(h.path.size() + h.query.size() <= limits.maxTargetBytes, What(input, limits, p));
  FUZZ_CHECK(h.contentLength <= limits.maxBodyBytes, What(input, limits, p));
  FUZZ_CHECK(h.contentLength == 0 || h.HasHeader("Content-Length"), What(input, limits, p));
  FUZZ_CHECK(!h.expectContinue || h.HasHeader("Expect"), What(input, limits, p));
  int hosts = 0;
  for (const auto& [name, value] : h.headers) hosts += EqualsIgnoringCase(name, "Host") ? 1 : 0;
  FUZZ_CHECK(hosts <= 1, What(input, limits, p));  // RFC 9112 §3.2

  const std::string_view head = input.substr(0, h.headBytes);
  FUZZ_CHECK(!h.method.empty() && Inside(h.method, head), What(input, limits, p));
  FUZZ_CHECK(h.path.starts_with('/') && Inside(h.path, head), What(input, limits, p));
  FUZZ_CHECK(Inside(h.query, head), What(input, limits, p));
  for (const auto& [name, value] : h.headers) {
    FUZZ_CHECK(Inside(name, head) && Inside(value, head), What(input, limits, p));
    FUZZ_CHECK(h.HasHeader(name), What(input, limits, p));
  }

  // What follows the head (a body, the next pipelined request) does not change it.
  const HeadParse alone = ParseRequestHead(head, limits);
  FUZZ_CHECK(Render(alone) == Render(p), What(input, limits, p) + "head alone:\n" + Render(alone));
  CheckQuery(h.query);
}

// The input arriving one byte at a time: the same outcome, and the same bytes examined, as when
// it arrives at once.
void CheckDribbled(std::string_view input, const HeadLimits& limits, const HeadParse& whole) {
  HeadParser atOnce(limits);
  atOnce.Feed(input);
  HeadParser parser(limits);
  size_t received = 0;
  while (received < input.size() &&
         parser.Feed(input.substr(0, ++received)) == State::kIncomplete) {
  }
  HeadParse dribbled;
  dribbled.state = parser.state();
  if (dribbled.state == State::kComplete) dribbled.head = parser.Head(input);
  if (dribbled.state == State::kRefused) {
    dribbled.status = parser.status();
    dribbled.reason = parser.reason();
  }
  FUZZ_CHECK(Render(dribbled) == Render(whole),
             What(input, limits, whole) + "dribbled:\n" + Render(dribbled));
  FUZZ_CHECK(parser.scanned() == atOnce.scanned(),
             What(input, limits, whole) + "scanned dribbled " + std::to_string(parser.scanned()) +
                 " at once " + std::to_string(atOnce.scanned()));
  FUZZ_CHECK(atOnce.scanned() <= 2 * std::min(input.size(), limits.maxHeadBytes),
             What(input, limits, whole) + "scanned " + std::to_string(atOnce.scanned()));
  if (whole.state == State::kComplete) {
    FUZZ_CHECK(atOnce.scanned() <= 2 * whole.head.headBytes, What(input, limits, whole));
  }
}

HeadParse CheckedParse(std::string_view input, const HeadLimits& limits) {
  HeadParse p = ParseRequestHead(input, limits);
  const bool waiting =
      input.find("\r\n\r\n") == std::string_view::npos && input.size() <= limits.maxHeadBytes;
  // Waiting for more only while the head may still end within the limits; a byte that makes it
  // unframeable refuses it before that.
  FUZZ_CHECK(p.state != State::kIncomplete || waiting, What(input, limits, p));
  switch (p.state) {
    case State::kIncomplete:
      FUZZ_CHECK(p.status == 0 && p.reason.empty(), What(input, limits, p));
      break;
    case State::kRefused:
      CheckRefusal(input, limits, p);
      break;
    case State::kComplete:
      CheckHead(input, limits, p);
      break;
  }
  const std::string copy(input);
  const HeadParse again = ParseRequestHead(copy, limits);
  FUZZ_CHECK(Render(again) == Render(p), What(input, limits, p) + "copy:\n" + Render(again));
  CheckDribbled(input, limits, p);
  return p;
}

}  // namespace
}  // namespace gpugate::transport

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpugate::transport;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const HeadParse loose = CheckedParse(input, kDefaultLimits);
  const HeadParse tight = CheckedParse(input, kSmallLimits);
  // Every small limit is below its default: tighter limits refuse more, and frame alike.
  FUZZ_CHECK(loose.state != State::kRefused || tight.state == State::kRefused,
             What(input, kDefaultLimits, loose) + What(input, kSmallLimits, tight));
  FUZZ_CHECK(tight.state != State::kComplete || Render(loose) == Render(tight),
             What(input, kDefaultLimits, loose) + What(input, kSmallLimits, tight));
  CheckQuery(input);  // QueryParam on arbitrary bytes, not only the target's query characters
  return 0;
}
