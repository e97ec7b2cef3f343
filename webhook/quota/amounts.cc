#include "quota/amounts.h"

#include <algorithm>

#include "common/strings.h"

namespace gpugate::quota {

std::string FormatMilli(int64_t milli) {
  // The magnitude as unsigned, so INT64_MIN renders instead of overflowing on negation.
  uint64_t magnitude = milli < 0 ? 0 - static_cast<uint64_t>(milli) : static_cast<uint64_t>(milli);
  std::string out = milli < 0 ? "-" : "";
  out += std::to_string(magnitude / kMilli);
  uint64_t fraction = magnitude % kMilli;
  if (fraction == 0) return out;
  std::string digits = std::to_string(fraction + kMilli).substr(1);  // zero-padded to 3
  while (digits.back() == '0') digits.pop_back();
  return out + "." + digits;
}

namespace {

bool AllDigits(std::string_view s) {
  return s.find_first_not_of("0123456789") == std::string_view::npos;
}

// Appends decimal digits (already checked) to `value`; false when it would pass INT64_MAX.
bool AccumulateDigits(std::string_view digits, int64_t& value) {
  for (char c : digits) {
    if (__builtin_mul_overflow(value, 10, &value)) return false;
    if (__builtin_add_overflow(value, c - '0', &value)) return false;
  }
  return true;
}

}  // namespace

Result<int64_t> ParseMilli(std::string_view text) {
  size_t dot = text.find('.');
  std::string_view whole = text.substr(0, dot);
  std::string_view fraction = dot == std::string_view::npos ? "" : text.substr(dot + 1);
  bool wellFormed = !whole.empty() && AllDigits(whole) && AllDigits(fraction) &&
                    (dot == std::string_view::npos || !fraction.empty());
  if (!wellFormed) return Fail(JsonQuote(text) + ": want a non-negative decimal such as 4 or 0.01");
  if (fraction.size() > 3) return Fail(JsonQuote(text) + ": more than three fractional digits");
  int64_t value = 0;
  std::string padded = std::string(fraction) + std::string(3 - fraction.size(), '0');
  if (!AccumulateDigits(whole, value) || !AccumulateDigits(padded, value)) {
    return Fail(JsonQuote(text) + ": too large");
  }
  return value;
}

std::string FormatAmounts(const Amounts& amounts) {
  std::string out;
  for (const auto& [name, milli] : amounts) {
    if (milli == 0) continue;
    if (!out.empty()) out += ',';
    out += name + "=" + FormatMilli(milli);
  }
  return out;
}

Amounts MinLimits(const Amounts& a, const Amounts& b) {
  Amounts out = a;
  for (const auto& [resource, milli] : b) {
    auto [it, inserted] = out.try_emplace(resource, milli);
    if (!inserted) it->second = std::min(it->second, milli);
  }
  return out;
}

}  // namespace gpugate::quota
