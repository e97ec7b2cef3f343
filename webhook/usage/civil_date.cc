#include "usage/civil_date.h"

#include <cstdio>

namespace gpugate::usage {
namespace {

// `n` digits at the start of `text`, or -1.
int Digits(std::string_view text, size_t n) {
  if (text.size() < n) return -1;
  int v = 0;
  for (size_t i = 0; i < n; ++i) {
    if (text[i] < '0' || text[i] > '9') return -1;
    v = v * 10 + (text[i] - '0');
  }
  return v;
}

}  // namespace

std::string FormatDate(std::chrono::local_days day) {
  std::chrono::year_month_day ymd{day};
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04d-%02u-%02u", static_cast<int>(ymd.year()),
                static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()));
  return buf;
}

Result<std::chrono::year_month> ParseMonth(std::string_view text) {
  int y = Digits(text, 4);
  int m = text.size() == 7 && text[4] == '-' ? Digits(text.substr(5), 2) : -1;
  if (y < 1970 || m < 1 || m > 12) return Fail("expected a month such as 2026-11");
  return std::chrono::year{y} / std::chrono::month{static_cast<unsigned>(m)};
}

Result<std::chrono::local_days> ParseDate(std::string_view text) {
  if (text.size() != 10 || text[7] != '-') return Fail("expected a date such as 2026-11-01");
  Result<std::chrono::year_month> month = ParseMonth(text.substr(0, 7));
  int d = Digits(text.substr(8), 2);
  if (!month || d < 1) return Fail("expected a date such as 2026-11-01");
  std::chrono::year_month_day ymd = *month / std::chrono::day{static_cast<unsigned>(d)};
  if (!ymd.ok()) return Fail("no such day: " + std::string(text));
  return std::chrono::local_days{ymd};
}

}  // namespace gpugate::usage
