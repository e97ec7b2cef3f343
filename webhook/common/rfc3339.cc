#include "common/rfc3339.h"

#include <time.h>

#include <algorithm>
#include <cstdio>

namespace gpugate {
namespace {

constexpr time_t kMaxSeconds = 7'000'000'000;  // 2191-10-26

// Reads exactly `n` digits at `pos`; -1 when they are not all digits.
int Digits(std::string_view text, size_t pos, size_t n) {
  if (pos + n > text.size()) return -1;
  int value = 0;
  for (size_t i = pos; i < pos + n; ++i) {
    if (text[i] < '0' || text[i] > '9') return -1;
    value = value * 10 + (text[i] - '0');
  }
  return value;
}

}  // namespace

std::string FormatRfc3339(WallClock::time_point t) {
  auto ms = std::chrono::floor<std::chrono::milliseconds>(t.time_since_epoch()).count();
  time_t seconds = static_cast<time_t>(ms >= 0 ? ms / 1000 : (ms - 999) / 1000);
  struct tm utc {};
  gmtime_r(&seconds, &utc);
  char buf[40];
  size_t n = strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &utc);
  snprintf(buf + n, sizeof buf - n, ".%03dZ", static_cast<int>(ms - seconds * 1000LL));
  return buf;
}

Result<WallClock::time_point> ParseRfc3339(std::string_view text) {
  auto bad = [&] { return Fail("\"" + std::string(text) + "\": want an RFC 3339 time"); };
  struct tm utc {};
  utc.tm_year = Digits(text, 0, 4) - 1900;
  utc.tm_mon = Digits(text, 5, 2) - 1;
  utc.tm_mday = Digits(text, 8, 2);
  utc.tm_hour = Digits(text, 11, 2);
  utc.tm_min = Digits(text, 14, 2);
  utc.tm_sec = Digits(text, 17, 2);
  if (text.size() < 20 || text[4] != '-' || text[7] != '-' ||
      (text[10] != 'T' && text[10] != 't') || text[13] != ':' || text[16] != ':' ||
      utc.tm_year < 0 || utc.tm_mon < 0 || utc.tm_mday < 1 || utc.tm_hour < 0 || utc.tm_min < 0 ||
      utc.tm_sec < 0 || utc.tm_mon > 11 || utc.tm_mday > 31 || utc.tm_hour > 23 ||
      utc.tm_min > 59 || utc.tm_sec > 60) {
    return bad();
  }
  size_t pos = 19;
  std::chrono::milliseconds fraction{0};
  if (text[pos] == '.') {
    int scale = 100;
    for (++pos; pos < text.size() && text[pos] >= '0' && text[pos] <= '9'; ++pos, scale /= 10) {
      fraction += std::chrono::milliseconds((text[pos] - '0') * scale);
    }
  }
  std::chrono::seconds offset{0};
  std::string_view zone = text.substr(std::min(pos, text.size()));
  if (zone.size() == 6 && (zone[0] == '+' || zone[0] == '-') && zone[3] == ':' &&
      Digits(zone, 1, 2) >= 0 && Digits(zone, 4, 2) >= 0) {
    offset = std::chrono::hours(Digits(zone, 1, 2)) + std::chrono::minutes(Digits(zone, 4, 2));
    if (zone[0] == '-') offset = -offset;
  } else if (zone != "Z" && zone != "z") {
    return bad();
  }
  time_t seconds = timegm(&utc);
  // WallClock counts nanoseconds in 64 bits (years 1678 to 2262); leave room for the offset and
  // for the durations callers add (common/rfc3339.h).
  if (seconds > kMaxSeconds) {
    return Fail("\"" + std::string(text) + "\": out of range (years 1900 to 2191)");
  }
  return WallClock::from_time_t(seconds) - offset + fraction;
}

}  // namespace gpugate
