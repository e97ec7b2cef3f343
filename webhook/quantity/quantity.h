// Kubernetes resource quantities (k8s.io/apimachinery/pkg/api/resource), parsed exactly.
//
// Grammar (as Kubernetes documents it):
//   <quantity> ::= <signedNumber><suffix>
//   <signedNumber> ::= <number> | + <number> | - <number>
//   <number> ::= <digits> | <digits>.<digits> | <digits>. | .<digits>
//   <suffix> ::= <binarySI> | <decimalExponent> | <decimalSI>
//   <binarySI> ::= Ki | Mi | Gi | Ti | Pi | Ei
//   <decimalSI> ::= m | "" | k | M | G | T | P | E   (and n, u for nano and micro)
//   <decimalExponent> ::= "e" <signedNumber> | "E" <signedNumber>
//
// The value is held exactly as mantissa * 10^exponent with a 128-bit mantissa, so "1000m",
// "1", "1e0" and "0.001k" compare equal and "0.5" is known not to be whole. Values whose
// mantissa would not fit are refused as out of range rather than rounded.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"

namespace gpugate {

class Quantity {
 public:
  Quantity() = default;
  static Quantity FromInt(int64_t value);

  bool IsNegative() const { return mantissa_ < 0; }
  bool IsZero() const { return mantissa_ == 0; }
  // True when the value is an integer (no fractional part), e.g. "2", "2000m", "1Ki".
  bool IsWhole() const;
  // The integer value when whole and within int64; nullopt otherwise.
  std::optional<int64_t> ToInt64() const;
  // The value in thousandths, rounded up (as Kubernetes' MilliValue), when within int64.
  std::optional<int64_t> ToMilli() const;

  // Three-way comparison by value.
  int Compare(const Quantity& other) const;
  bool operator==(const Quantity& other) const { return Compare(other) == 0; }

  // A canonical decimal rendering, e.g. "2", "0.5", "1024"; for messages.
  std::string ToString() const;

 private:
  friend Result<Quantity> ParseQuantity(std::string_view text);
  void Normalize();  // strips trailing decimal zeros from the mantissa into the exponent

  __int128 mantissa_ = 0;
  int32_t exponent_ = 0;  // base 10
};

// Parses `text` with the full Kubernetes grammar. Whitespace is not allowed (Kubernetes
// trims JSON input before parsing; callers pass the trimmed string). The error message says
// what is wrong without repeating the input.
Result<Quantity> ParseQuantity(std::string_view text);

}  // namespace gpugate
