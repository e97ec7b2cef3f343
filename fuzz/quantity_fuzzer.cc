// Fuzzes ParseQuantity (webhook/quantity) and checks what a parsed quantity promises: its canonical
// rendering parses back to the same value and renders the same; comparison is an order; the
// integer and milli-unit conversions agree with the value. The input is one quantity, or two
// separated by the first NUL byte (the second is compared with the first).
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "fuzz/fuzz_check.h"
#include "quantity/quantity.h"

namespace gpugate {
namespace {

std::string Show(const Quantity& q) { return q.ToString(); }

Quantity MustParse(std::string_view text) {
  Result<Quantity> q = ParseQuantity(text);
  FUZZ_CHECK(q.has_value(), std::string(text) + ": " + q.error().message);
  return *q;
}

void CheckOne(std::string_view text, const Quantity& q) {
  // The canonical rendering is a quantity with the same value, and a fixed point.
  const std::string canonical = q.ToString();
  const Quantity again = MustParse(canonical);
  FUZZ_CHECK(again.Compare(q) == 0 && q.Compare(again) == 0,
             std::string(text) + " -> " + canonical + " -> " + Show(again));
  FUZZ_CHECK(again.ToString() == canonical, canonical + " -> " + again.ToString());
  FUZZ_CHECK(q.Compare(q) == 0 && q == again, canonical);
  FUZZ_CHECK(q.IsZero() == (canonical == "0"), canonical);
  FUZZ_CHECK(q.IsNegative() == canonical.starts_with('-'), canonical);
  FUZZ_CHECK(q.IsWhole() == (canonical.find('.') == std::string::npos), canonical);
  FUZZ_CHECK(q.IsZero() == (q.Compare(Quantity{}) == 0), canonical);

  // ToInt64: exactly the whole values within int64, equal to FromInt of the result.
  if (const std::optional<int64_t> i = q.ToInt64()) {
    FUZZ_CHECK(q.IsWhole(), canonical);
    FUZZ_CHECK(Quantity::FromInt(*i) == q, canonical + " vs " + std::to_string(*i));
    FUZZ_CHECK(std::to_string(*i) == canonical, canonical + " vs " + std::to_string(*i));
  }

  // ToMilli rounds up to a whole number of thousandths: m-1 < q*1000 <= m.
  if (const std::optional<int64_t> m = q.ToMilli()) {
    const Quantity milli = MustParse(std::to_string(*m) + "m");
    FUZZ_CHECK(q.Compare(milli) <= 0, canonical + " above its milli " + std::to_string(*m));
    if (*m != std::numeric_limits<int64_t>::min()) {
      const Quantity below = MustParse(std::to_string(*m - 1) + "m");
      FUZZ_CHECK(below.Compare(q) < 0, canonical + " not above " + std::to_string(*m - 1) + "m");
    }
  }
}

void CheckPair(const Quantity& a, const Quantity& b) {
  const int ab = a.Compare(b);
  const int ba = b.Compare(a);
  FUZZ_CHECK(ab == -ba, Show(a) + " vs " + Show(b));
  FUZZ_CHECK(ab >= -1 && ab <= 1, Show(a) + " vs " + Show(b));
  // Equal values render alike (the rendering is canonical).
  FUZZ_CHECK((ab == 0) == (a.ToString() == b.ToString()), Show(a) + " vs " + Show(b));
  // Comparison agrees with the integer values where both exist.
  if (auto ia = a.ToInt64(), ib = b.ToInt64(); ia && ib) {
    FUZZ_CHECK(ab == (*ia < *ib ? -1 : *ia > *ib ? 1 : 0), Show(a) + " vs " + Show(b));
  }
}

}  // namespace
}  // namespace gpugate

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpugate;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t nul = input.find('\0');
  const std::string_view first = input.substr(0, nul);
  Result<Quantity> a = ParseQuantity(first);
  if (a) CheckOne(first, *a);
  if (nul == std::string_view::npos) return 0;
  const std::string_view second = input.substr(nul + 1);
  Result<Quantity> b = ParseQuantity(second);
  if (b) CheckOne(second, *b);
  if (a && b) CheckPair(*a, *b);
  return 0;
}
