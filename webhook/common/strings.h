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

// Glob match where '*' matches any run of characters (used for resource-name patterns).
bool GlobMatch(std::string_view pattern, std::string_view text);

}  // namespace gpugate
