#include "common/strings.h"

#include <cstdint>
#include <cstring>

namespace gpugate {

namespace {

// Whether any of the 8 bytes of `w` is one JSON must escape: a control character (below 0x20),
// '"' or '\\'. Exact: the bit tricks can only err after a byte that really matches.
bool AnyToEscape(uint64_t w) {
  constexpr uint64_t kOnes = 0x0101010101010101, kHigh = 0x8080808080808080;
  const auto below = [](uint64_t x, uint64_t n) { return (x - kOnes * n) & ~x & kHigh; };
  return (below(w, 0x20) | below(w ^ (kOnes * '"'), 1) | below(w ^ (kOnes * '\\'), 1)) != 0;
}

bool ToEscape(unsigned char c) { return c < 0x20 || c == '"' || c == '\\'; }

// The position of the first character at or after `from` that JSON must escape, or s.size().
// Eight bytes at a time: most strings have nothing to escape.
size_t NextToEscape(std::string_view s, size_t from) {
  size_t i = from;
  uint64_t w;
  for (; i + 8 <= s.size(); i += 8) {
    std::memcpy(&w, s.data() + i, 8);
    if (AnyToEscape(w)) break;
  }
  // Fewer than 8 left: the last 8 bytes (overlapping some already found clean) in one test.
  if (i + 8 > s.size() && i < s.size() && s.size() >= 8) {
    std::memcpy(&w, s.data() + s.size() - 8, 8);
    if (!AnyToEscape(w)) return s.size();
  }
  while (i < s.size() && !ToEscape(static_cast<unsigned char>(s[i]))) ++i;
  return i;
}

}  // namespace

void AppendJsonString(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  size_t i = NextToEscape(s, 0);
  if (i == s.size()) return AppendBetween(out, "\"", s, "\"");  // nothing to escape: the usual case
  out += '"';
  size_t plain = 0;  // the first character not yet appended
  for (; i < s.size(); i = NextToEscape(s, plain)) {
    out.append(s.data() + plain, i - plain);
    plain = i + 1;
    const unsigned char c = static_cast<unsigned char>(s[i]);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default:
        const char hex[] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 0xF]};
        out.append(hex, sizeof hex);
    }
  }
  out.append(s.data() + plain, s.size() - plain);
  out += '"';
}

std::string JsonQuote(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  AppendJsonString(out, s);
  return out;
}

std::string PrometheusLabelValue(std::string_view v) {
  std::string out;
  out.reserve(v.size());
  for (char c : v) {
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    if (c == '\\' || c == '"') out += '\\';
    out += c;
  }
  return out;
}

std::string QueryEscape(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size());
  for (unsigned char c : s) {
    bool unreserved = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                      c == '-' || c == '.' || c == '_' || c == '~';
    if (unreserved) {
      out.push_back(static_cast<char>(c));
    } else {
      out += {'%', kHex[c >> 4], kHex[c & 15]};
    }
  }
  return out;
}

bool GlobMatch(std::string_view pattern, std::string_view text) {
  // Iterative matcher with single backtrack point: linear in practice, no recursion.
  size_t p = 0, t = 0, star = std::string_view::npos, mark = 0;
  while (t < text.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = t;
    } else if (p < pattern.size() && pattern[p] == text[t]) {
      ++p;
      ++t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

}  // namespace gpugate
