// Small string helpers shared by the layers.
#pragma once

#include <cstddef>
#include <cstring>
#include <string>
#include <string_view>

namespace gpugate {

// Appends `text` between two literals in one step (`,"` key `":`, a quoted string): room for all
// three at once, the literals' bytes copied as constants.
template <size_t Before, size_t After>
void AppendBetween(std::string& out, const char (&before)[Before], std::string_view text,
                   const char (&after)[After]) {
  const size_t start = out.size(), end = start + (Before - 1) + text.size() + (After - 1);
  // The size is ours, not the callback's: libstdc++ 12 passes the grown capacity instead.
  out.resize_and_overwrite(end, [&](char* p, size_t) {
    std::memcpy(p + start, before, Before - 1);
    std::memcpy(p + start + Before - 1, text.data(), text.size());
    std::memcpy(p + end - (After - 1), after, After - 1);
    return end;
  });
}

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
