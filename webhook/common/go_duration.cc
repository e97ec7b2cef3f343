#include "common/go_duration.h"

#include <array>
#include <string>

namespace gpugate {
namespace {

struct Unit {
  std::string_view name;
  double micros;
};

// Longest names first, so "ms" is not read as "m" followed by "s".
constexpr std::array<Unit, 8> kUnits{{{"ns", 1e-3},
                                      {"us", 1},
                                      {"\xc2\xb5s", 1},  // µs, as Go writes it
                                      {"ms", 1e3},
                                      {"s", 1e6},
                                      {"m", 60e6},
                                      {"h", 3600e6},
                                      {"\xce\xbcs", 1}}};  // μs (Greek mu), which Go also reads

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

Result<std::chrono::microseconds> ParseGoDuration(std::string_view text) {
  return ParseGoDuration(text, std::chrono::hours(24));
}

Result<std::chrono::microseconds> ParseGoDuration(std::string_view text,
                                                  std::chrono::microseconds max) {
  const double maxMicros = static_cast<double>(max.count());
  if (text.empty()) return Fail("empty");
  if (text == "0") return std::chrono::microseconds(0);
  if (text.front() == '-') return Fail("negative");
  if (text.front() == '+') text.remove_prefix(1);
  double total = 0;
  std::string_view rest = text;
  while (!rest.empty()) {
    // A number: digits, optionally a fraction.
    size_t i = 0;
    double whole = 0;
    bool digits = false;
    while (i < rest.size() && IsDigit(rest[i])) {
      whole = whole * 10 + (rest[i] - '0');
      digits = true;
      ++i;
    }
    if (i < rest.size() && rest[i] == '.') {
      ++i;
      double scale = 0.1;
      while (i < rest.size() && IsDigit(rest[i])) {
        whole += (rest[i] - '0') * scale;
        scale /= 10;
        digits = true;
        ++i;
      }
    }
    if (!digits) return Fail("expected a number, e.g. 5s");
    if (whole > maxMicros) return Fail("too long");
    rest.remove_prefix(i);
    const Unit* unit = nullptr;
    for (const Unit& u : kUnits) {
      if (rest.starts_with(u.name) && (!unit || u.name.size() > unit->name.size())) unit = &u;
    }
    if (!unit) return Fail("missing or unknown unit (ns, us, ms, s, m, h)");
    rest.remove_prefix(unit->name.size());
    total += whole * unit->micros;
    if (total > maxMicros) {
      if (max == std::chrono::hours(24)) return Fail("longer than a day");
      return Fail("longer than " +
                  FormatGoDuration(std::chrono::duration_cast<std::chrono::milliseconds>(max)));
    }
  }
  return std::chrono::microseconds(static_cast<int64_t>(total));
}

std::string FormatGoDuration(std::chrono::milliseconds d) {
  using namespace std::chrono;
  if (d.count() == 0) return "0s";
  std::string out;
  if (d < 0ms) {
    out = "-";
    d = -d;
  }
  if (d % 1s != 0ms) {  // Go writes "1.5s"; whole milliseconds read better in a config file
    return out + std::to_string(d.count()) + "ms";
  }
  auto h = duration_cast<hours>(d);
  auto m = duration_cast<minutes>(d - h);
  auto s = duration_cast<seconds>(d - h - m);
  if (h.count() > 0) out += std::to_string(h.count()) + "h";
  if (m.count() > 0) out += std::to_string(m.count()) + "m";
  if (s.count() > 0) out += std::to_string(s.count()) + "s";
  return out;
}

}  // namespace gpugate
