// What the transport checks in a request's headers before it reads the body or hands it to the
// review codec. Pure functions of header values, so they are tested without a server.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gpugate::transport {

// A refusal to answer with: the status and the plain-text reason.
struct Refusal {
  int status;
  std::string message;
};

// Whether a request's body can be read within the body cap. cpp-httplib 0.11 checks the cap
// only against a Content-Length: a chunked body, or a POST, PUT or PATCH body without a
// Content-Length (read until the peer closes), is read whole into memory whatever its size. So
// such requests get 411 Length Required before their body is read. The API server always sends
// a Content-Length; a DELETE without one carries no body (cpp-httplib reads none).
std::optional<Refusal> CheckBodyFraming(std::string_view method, bool hasContentLength,
                                        bool hasTransferEncoding);

// Whether a Content-Type header names JSON: the media type "application/json" in any letter
// case, with or without parameters ("application/json; charset=utf-8"); not a longer type that
// merely starts with it ("application/json-patch+json", "application/jsonx").
bool IsJsonMediaType(std::string_view contentType);

}  // namespace gpugate::transport
