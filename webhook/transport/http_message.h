// HTTP/1.1 as gpugate's event-driven server speaks it: a request's head (parsed by
// head_parser.h), query parameters, and a response written as one buffer. Pure functions over
// bytes, tested without a socket (http_message_test.cc, head_parser_test.cc).
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpugate::transport {

// A request's head. Every view points into the connection's buffer (HeadParser::Head).
struct RequestHead {
  std::string_view method;  // "POST"
  std::string_view path;    // "/validate", without the query
  std::string_view query;   // "timeout=5s", without the '?'
  std::vector<std::pair<std::string_view, std::string_view>> headers;  // in order received
  size_t headBytes = 0;         // through the blank line; the body starts here
  size_t contentLength = 0;     // 0 without a Content-Length
  bool keepAlive = true;        // HTTP/1.1 without `Connection: close`, or 1.0 with keep-alive
  bool expectContinue = false;  // `Expect: 100-continue`

  // The first header named `name` (any letter case), or "" when there is none.
  std::string_view Header(std::string_view name) const;
  bool HasHeader(std::string_view name) const;
};

// The value of query parameter `name` in `query` ("a=1&timeout=5s"), percent-decoded, or
// nullopt when absent. `+` stands for a space, as in HTML forms.
std::optional<std::string> QueryParam(std::string_view query, std::string_view name);

// Whether a Content-Type names JSON ("application/json", any case, any parameters), and not a
// longer type that merely starts with it ("application/json-patch+json").
bool IsJsonMediaType(std::string_view contentType);

struct Response {
  int status = 200;
  std::string_view contentType = "text/plain";  // a literal: every type gpugate answers with
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // besides the framing ones
  bool close = false;                                        // end the connection after this answer
  // Set by a handler whose answer may wait on another process (the API server, a disk): the
  // server runs it on a thread that may block, where it fills in this response, and answers
  // then. The serving thread goes on with other connections meanwhile.
  std::function<void(Response&)> blocking;

  void Set(int code, std::string text, std::string_view type = "text/plain") {
    status = code;
    body = std::move(text);
    contentType = type;
  }
};

// What a check of a request's head decided, before its body is read: read the body and answer
// the request, or refuse it unread with the answer the check filled in (the connection closes
// after that answer).
enum class HeadVerdict { kRead, kRefuse };

// Appends `res` to `out` as an HTTP/1.1 response: status line, Content-Type, Content-Length,
// `Connection: close` when `close`, the extra headers, and the body unless `headOnly` (a HEAD
// request is answered with the GET's headers and no body).
void WriteResponse(const Response& res, bool close, bool headOnly, std::string& out);

// "OK", "Not Found", ...; "" for a code without a phrase here.
std::string_view ReasonPhrase(int status);

}  // namespace gpugate::transport
