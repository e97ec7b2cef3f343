// Small string helpers shared by the layers.
#pragma once

#include <string>
#include <string_view>

namespace gpugate {

// Appends `s` as a JSON string literal (with quotes), escaping per RFC 8259.
void AppendJsonString(std::string& out, std::string_view s);

// `s` as a JSON string literal; for messages and logs.
std::string JsonQuote(std::string_view s);

// A Prometheus label value, escaped as the text exposition format requires (backslash, double
// quote and newline), without the surrounding quotes.
std::string PrometheusLabelValue(std::string_view v);

// `s` as a URL query parameter value: every byte but RFC 3986's unreserved characters
// (A-Z a-z 0-9 - . _ ~) percent-encoded, so an opaque token (a list's `continue`) reaches the
// server as it was given, whatever it holds.
std::string QueryEscape(std::string_view s);

// Glob match where '*' matches any run of characters (used for resource-name patterns).
bool GlobMatch(std::string_view pattern, std::string_view text);

}  // namespace gpugate
