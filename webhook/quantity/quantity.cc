#include "quantity/quantity.h"

#include <algorithm>
#include <array>
#include <limits>
#include <utility>

namespace gpugate {
namespace {

using Magnitude = unsigned __int128;

// Magnitudes stay at or below 2^127 - 1 so that negating one always fits the signed mantissa.
constexpr Magnitude kMaxMagnitude = ~Magnitude{0} >> 1;
// Far beyond any real resource amount, yet small enough that no exponent arithmetic overflows
// and ToString output stays bounded.
constexpr int64_t kMaxExponent = 1000;
// Exponent suffixes saturate here while being read; anything this large is refused anyway.
constexpr int64_t kExponentSaturation = int64_t{1} << 40;
// 10^38 is the largest power of ten a Magnitude holds.
constexpr int kMaxPow10 = 38;

constexpr const char* kInvalid = "is not a valid quantity";
constexpr const char* kOutOfRange = "is out of range";

// magnitude * 10^exponent, unsigned; the sign is kept apart while parsing.
struct Decimal {
  Magnitude magnitude = 0;
  int64_t exponent = 0;
};

// What a suffix does to the number: multiply by base^power.
struct Scale {
  int base = 10;
  int64_t power = 0;
};

struct SuffixEntry {
  std::string_view text;
  Scale scale;
};

constexpr std::array<SuffixEntry, 16> kSuffixes = {{
    {"n", {10, -9}},
    {"u", {10, -6}},
    {"m", {10, -3}},
    {"", {10, 0}},
    {"k", {10, 3}},
    {"M", {10, 6}},
    {"G", {10, 9}},
    {"T", {10, 12}},
    {"P", {10, 15}},
    {"E", {10, 18}},
    {"Ki", {2, 10}},
    {"Mi", {2, 20}},
    {"Gi", {2, 30}},
    {"Ti", {2, 40}},
    {"Pi", {2, 50}},
    {"Ei", {2, 60}},
}};

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

Magnitude Pow10(int n) {
  Magnitude p = 1;
  for (int i = 0; i < n; ++i) p *= 10;
  return p;
}

Magnitude Abs(__int128 v) { return v < 0 ? Magnitude{0} - Magnitude(v) : Magnitude(v); }

int CountDigits(Magnitude v) {
  int n = 1;
  for (; v >= 10; v /= 10) ++n;
  return n;
}

// Returns false when m * 10^n + digit would exceed kMaxMagnitude. A non-zero m overflows within
// 39 steps, so the loop is short even when n comes from a long run of zeros.
bool AppendDigit(Magnitude& m, int64_t n, int digit) {
  for (int64_t i = 0; i < n && m != 0; ++i) {
    if (m > kMaxMagnitude / 10) return false;
    m *= 10;
  }
  if (m > kMaxMagnitude - digit) return false;
  m += digit;
  return true;
}

struct NumberScan {
  Decimal value;
  bool any_digit = false;
  bool overflow = false;
};

// Reads <digits>[.<digits>] from text[pos], leaving pos after it. Leading zeros cost nothing and
// trailing zeros become exponent, so "0.000…1" and "1000…0" need no wide mantissa.
NumberScan ScanNumber(std::string_view text, size_t& pos) {
  NumberScan scan;
  int64_t pending_zeros = 0;
  int64_t fraction_digits = 0;
  bool seen_point = false;
  for (; pos < text.size(); ++pos) {
    const char c = text[pos];
    if (c == '.' && !seen_point) {
      seen_point = true;
      continue;
    }
    if (!IsDigit(c)) break;
    scan.any_digit = true;
    if (seen_point) ++fraction_digits;
    if (c == '0') {
      if (scan.value.magnitude != 0) ++pending_zeros;
      continue;
    }
    if (!scan.overflow && !AppendDigit(scan.value.magnitude, pending_zeros + 1, c - '0')) {
      scan.overflow = true;
    }
    pending_zeros = 0;
  }
  scan.value.exponent = pending_zeros - fraction_digits;
  return scan;
}

// <sign>?<digits> after an 'e' or 'E'; saturates rather than overflowing on long digit runs.
std::optional<int64_t> ParseExponent(std::string_view s) {
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty()) return std::nullopt;
  int64_t value = 0;
  for (char c : s) {
    if (!IsDigit(c)) return std::nullopt;
    value = std::min(value * 10 + (c - '0'), kExponentSaturation);
  }
  return negative ? -value : value;
}

std::optional<Scale> ParseSuffix(std::string_view s) {
  for (const SuffixEntry& entry : kSuffixes) {
    if (entry.text == s) return entry.scale;
  }
  // A lone "E" matched exa above; only a longer suffix can be an exponent.
  if (s.size() < 2 || (s[0] != 'e' && s[0] != 'E')) return std::nullopt;
  std::optional<int64_t> exponent = ParseExponent(s.substr(1));
  if (!exponent) return std::nullopt;
  return Scale{10, *exponent};
}

Result<Decimal> ApplyScale(Decimal d, Scale scale) {
  if (d.magnitude == 0) return Decimal{};
  if (scale.base == 2) {
    if (d.magnitude > (kMaxMagnitude >> scale.power)) return Fail(kOutOfRange);
    d.magnitude <<= scale.power;
  } else {
    d.exponent += scale.power;
  }
  while (d.magnitude % 10 == 0) {
    d.magnitude /= 10;
    ++d.exponent;
  }
  if (d.exponent < -kMaxExponent || d.exponent > kMaxExponent) return Fail(kOutOfRange);
  return d;
}

// v * 10^n when it fits int64; the early exit keeps v * 10 from overflowing __int128.
std::optional<int64_t> ScaleToInt64(__int128 v, int64_t n) {
  constexpr __int128 kLow = std::numeric_limits<int64_t>::min();
  constexpr __int128 kHigh = std::numeric_limits<int64_t>::max();
  for (int64_t i = 0; i < n && v != 0; ++i) {
    if (v < kLow || v > kHigh) return std::nullopt;
    v *= 10;
  }
  if (v < kLow || v > kHigh) return std::nullopt;
  return static_cast<int64_t>(v);
}

// Three-way comparison of two non-zero magnitudes a * 10^ea and b * 10^eb.
int CompareMagnitude(Magnitude a, int64_t ea, Magnitude b, int64_t eb) {
  const int64_t order_a = CountDigits(a) + ea;
  const int64_t order_b = CountDigits(b) + eb;
  if (order_a != order_b) return order_a < order_b ? -1 : 1;
  // Same leading-digit position, so the exponents differ by at most 38. Dividing the one with
  // more digits avoids multiplying past 2^128 (9e38 does not fit, 9 and 1.7e38 / 1e38 do).
  const bool swap = ea < eb;
  if (swap) {
    std::swap(a, b);
    std::swap(ea, eb);
  }
  const Magnitude divisor = Pow10(static_cast<int>(ea - eb));
  const Magnitude quotient = b / divisor;
  int result = a != quotient ? (a < quotient ? -1 : 1) : (b % divisor == 0 ? 0 : -1);
  return swap ? -result : result;
}

std::string MagnitudeDigits(Magnitude v) {
  std::string digits;
  do {
    digits.push_back(static_cast<char>('0' + static_cast<int>(v % 10)));
    v /= 10;
  } while (v != 0);
  std::reverse(digits.begin(), digits.end());
  return digits;
}

}  // namespace

Quantity Quantity::FromInt(int64_t value) {
  Quantity q;
  q.mantissa_ = value;
  q.Normalize();
  return q;
}

void Quantity::Normalize() {
  if (mantissa_ == 0) {
    exponent_ = 0;
    return;
  }
  while (mantissa_ % 10 == 0) {
    mantissa_ /= 10;
    ++exponent_;
  }
}

// Zero is always held with exponent 0, so it counts as whole too.
bool Quantity::IsWhole() const { return exponent_ >= 0; }

std::optional<int64_t> Quantity::ToInt64() const {
  if (!IsWhole()) return std::nullopt;
  return ScaleToInt64(mantissa_, exponent_);
}

std::optional<int64_t> Quantity::ToMilli() const {
  const int64_t shift = int64_t{exponent_} + 3;
  if (shift >= 0) return ScaleToInt64(mantissa_, shift);
  // |mantissa_| < 10^39, so beyond 10^38 the value is a non-zero fraction of one milli.
  if (-shift > kMaxPow10) return mantissa_ > 0 ? 1 : 0;
  const __int128 divisor = static_cast<__int128>(Pow10(static_cast<int>(-shift)));
  __int128 milli = mantissa_ / divisor;  // truncates toward zero: already the ceiling if negative
  if (mantissa_ > 0 && mantissa_ % divisor != 0) ++milli;
  return ScaleToInt64(milli, 0);
}

int Quantity::Compare(const Quantity& other) const {
  const int sign = (mantissa_ > 0) - (mantissa_ < 0);
  const int other_sign = (other.mantissa_ > 0) - (other.mantissa_ < 0);
  if (sign != other_sign) return sign < other_sign ? -1 : 1;
  if (sign == 0) return 0;
  const int by_magnitude =
      CompareMagnitude(Abs(mantissa_), exponent_, Abs(other.mantissa_), other.exponent_);
  return sign > 0 ? by_magnitude : -by_magnitude;
}

std::string Quantity::ToString() const {
  std::string digits = MagnitudeDigits(Abs(mantissa_));
  if (mantissa_ != 0 && exponent_ > 0) digits.append(static_cast<size_t>(exponent_), '0');
  if (mantissa_ != 0 && exponent_ < 0) {
    const size_t fraction = static_cast<size_t>(-int64_t{exponent_});
    if (digits.size() <= fraction) digits.insert(0, fraction - digits.size() + 1, '0');
    digits.insert(digits.size() - fraction, 1, '.');
  }
  return IsNegative() ? "-" + digits : digits;
}

Result<Quantity> ParseQuantity(std::string_view text) {
  // The usual quantity of a GPU resource, a few plain digits ("1", "8"): the same value the
  // general scan below gives (normalised alike), without it.
  if (!text.empty() && text.size() <= 18 && std::all_of(text.begin(), text.end(), IsDigit)) {
    int64_t value = 0;
    for (char c : text) value = value * 10 + (c - '0');
    return Quantity::FromInt(value);
  }
  size_t pos = 0;
  bool negative = false;
  if (!text.empty() && (text[0] == '+' || text[0] == '-')) {
    negative = text[0] == '-';
    pos = 1;
  }
  const NumberScan number = ScanNumber(text, pos);
  const std::optional<Scale> scale = ParseSuffix(text.substr(pos));
  // Syntax first, so malformed input is never reported as merely too large.
  if (!number.any_digit || !scale) return Fail(kInvalid);
  if (number.overflow) return Fail(kOutOfRange);
  Result<Decimal> value = ApplyScale(number.value, *scale);
  if (!value) return std::unexpected(value.error());
  Quantity q;
  q.mantissa_ = static_cast<__int128>(value->magnitude);
  if (negative) q.mantissa_ = -q.mantissa_;
  q.exponent_ = static_cast<int32_t>(value->exponent);
  return q;
}

}  // namespace gpugate
