#include "common/base64.h"

#include <cstdint>

namespace gpugate {
namespace {

// Value of a base64 alphabet character, or -1.
int DecodeChar(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

std::unexpected<Error> BadChar(char c, size_t offset) {
  std::string shown = (c >= 0x21 && c <= 0x7e) ? std::string{'\'', c, '\''} : "a control byte";
  return Fail("invalid base64: unexpected " + shown + " at offset " + std::to_string(offset));
}

}  // namespace

std::string Base64Encode(std::string_view data) {
  std::string out;
  AppendBase64(out, data);
  return out;
}

void AppendBase64(std::string& out, std::string_view data) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const size_t start = out.size();
  out.resize(start + (data.size() + 2) / 3 * 4);
  char* p = out.data() + start;
  auto put = [&](uint32_t n) {  // a group of three bytes (n's low 24 bits) as four characters
    p[0] = kAlphabet[n >> 18];
    p[1] = kAlphabet[(n >> 12) & 63];
    p[2] = kAlphabet[(n >> 6) & 63];
    p[3] = kAlphabet[n & 63];
    p += 4;
  };
  size_t i = 0;
  for (; i + 3 <= data.size(); i += 3) {
    put((uint8_t(data[i]) << 16) | (uint8_t(data[i + 1]) << 8) | uint8_t(data[i + 2]));
  }
  if (size_t rest = data.size() - i; rest > 0) {  // the last one or two bytes, padded
    put((uint8_t(data[i]) << 16) | (rest == 2 ? uint8_t(data[i + 1]) << 8 : 0));
    p[-1] = '=';
    if (rest == 1) p[-2] = '=';
  }
}

Result<std::string> Base64Decode(std::string_view text) {
  std::string out;
  out.reserve(text.size() / 4 * 3);
  uint32_t group = 0;  // the current 4-character group's bits
  int count = 0;       // characters of the current group so far, '=' included
  int padding = 0;     // '=' in the current group; only the last group may have them
  bool ended = false;  // a padded group has ended the data
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (IsSpace(c)) continue;
    bool pad = c == '=' && count >= 2;  // '=' may only fill the 3rd and 4th places
    int v = DecodeChar(c);
    if (ended || (v < 0 && !pad) || (padding > 0 && !pad)) return BadChar(c, i);
    padding += pad;
    group = (group << 6) | uint32_t(pad ? 0 : v);
    if (++count < 4) continue;
    out += char(group >> 16);
    if (padding < 2) out += char((group >> 8) & 0xff);
    if (padding < 1) out += char(group & 0xff);
    ended = padding > 0;
    group = 0;
    count = 0;
  }
  if (count != 0) return Fail("invalid base64: truncated (length is not a multiple of 4)");
  return out;
}

}  // namespace gpugate
