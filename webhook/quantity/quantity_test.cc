#include "quantity/quantity.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>

namespace gpugate {
namespace {

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();
// 2^127 - 1, the largest mantissa a Quantity holds.
const std::string kMaxMantissa = "170141183460469231731687303715884105727";

std::string Describe(const Result<Quantity>& r) {
  return r ? "value " + r->ToString() : "error " + r.error().message;
}

Quantity MustParse(std::string_view text) {
  Result<Quantity> q = ParseQuantity(text);
  EXPECT_TRUE(q.has_value()) << text << ": " << Describe(q);
  return q.value_or(Quantity{});
}

TEST(ParseQuantity, ValidInputs) {
  struct Case {
    std::string text;
    std::string want;  // ToString()
    bool whole;
    std::optional<int64_t> as_int;
  } cases[] = {
      {"1", "1", true, 1},
      {"+1", "1", true, 1},
      {"-1", "-1", true, -1},
      {"0", "0", true, 0},
      {"-0", "0", true, 0},
      {"+0.000", "0", true, 0},
      {"007", "7", true, 7},
      {"1000m", "1", true, 1},
      {"1500m", "1.5", false, std::nullopt},
      {"0.5", "0.5", false, std::nullopt},
      {".5", "0.5", false, std::nullopt},
      {"+.5", "0.5", false, std::nullopt},
      {"5.", "5", true, 5},
      {"-1.25", "-1.25", false, std::nullopt},
      {"10.0", "10", true, 10},
      {"1e3", "1000", true, 1000},
      {"1E3", "1000", true, 1000},
      {"12e+2", "1200", true, 1200},
      {"1.3E+6", "1300000", true, 1300000},
      {"1e0003", "1000", true, 1000},
      {"1e-0", "1", true, 1},
      {"12e-1", "1.2", false, std::nullopt},
      {"1e-3", "0.001", false, std::nullopt},
      {"1E-3", "0.001", false, std::nullopt},
      {"0.5e-2", "0.005", false, std::nullopt},
      {"0e999999999999", "0", true, 0},
      {"1n", "0.000000001", false, std::nullopt},
      {"0.9n", "0.0000000009", false, std::nullopt},  // kept exact; Kubernetes rounds to 1n
      {"100u", "0.0001", false, std::nullopt},
      {"3m", "0.003", false, std::nullopt},
      {"8k", "8000", true, 8000},
      {"1.5k", "1500", true, 1500},
      {"0.001k", "1", true, 1},
      {"0.0005k", "0.5", false, std::nullopt},
      {"100.035k", "100035", true, 100035},
      {"10.035M", "10035000", true, 10035000},
      {"1.G", "1000000000", true, 1000000000},
      {"5T", "5000000000000", true, 5000000000000},
      {"2.5P", "2500000000000000", true, 2500000000000000},
      {"1E", "1000000000000000000", true, 1000000000000000000},  // lone E is exa
      {"12E", "12000000000000000000", true, std::nullopt},       // whole, beyond int64
      {"0Ki", "0", true, 0},
      {"1Ki", "1024", true, 1024},
      {"1.5Ki", "1536", true, 1536},
      {"2Mi", "2097152", true, 2097152},
      {"0.5Mi", "524288", true, 524288},
      {"100.035Ki", "102435.84", false, std::nullopt},
      {"0.000000000001Ki", "0.000000001024", false, std::nullopt},
      {"6Gi", "6442450944", true, 6442450944},
      {"1Ei", "1152921504606846976", true, 1152921504606846976},
      {"8Ei", "9223372036854775808", true, std::nullopt},  // Kubernetes caps at 2^63-1
      {"-8Ei", "-9223372036854775808", true, kInt64Min},
      {"9223372036854775807", "9223372036854775807", true, kInt64Max},
      {"9223372036854775808", "9223372036854775808", true, std::nullopt},
      {kMaxMantissa, kMaxMantissa, true, std::nullopt},
      {"-" + kMaxMantissa, "-" + kMaxMantissa, true, std::nullopt},
      {"147573952589676412927Ei", "170141183460469231730534382211277258752", true, std::nullopt},
      {"123456789012345678901234567890123456789e-38", "1.23456789012345678901234567890123456789",
       false, std::nullopt},
      {"1e1000", "1" + std::string(1000, '0'), true, std::nullopt},
      {"0.1e1001", "1" + std::string(1000, '0'), true, std::nullopt},
      {"1e-1000", "0." + std::string(999, '0') + "1", false, std::nullopt},
      {std::string(10000, '0') + "1", "1", true, 1},
      {"1." + std::string(10000, '0'), "1", true, 1},
      {"1" + std::string(40, '0'), "1" + std::string(40, '0'), true, std::nullopt},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text.substr(0, 60));
    Result<Quantity> q = ParseQuantity(c.text);
    ASSERT_TRUE(q.has_value()) << Describe(q);
    EXPECT_EQ(q->ToString(), c.want);
    EXPECT_EQ(q->IsWhole(), c.whole);
    EXPECT_EQ(q->ToInt64(), c.as_int);
    EXPECT_EQ(q->IsNegative(), c.want[0] == '-');
    EXPECT_EQ(q->IsZero(), c.want == "0");
  }
}

TEST(ParseQuantity, RejectsMalformedInput) {
  const std::string cases[] = {
      "",
      ".",
      "+",
      "-",
      "-.",
      "+.",
      "abc",
      "Non-Numeric",
      "k",
      "Mi",
      "e3",
      "1.2.3",
      "1.1.M",
      "1+1.0M",
      "1Kib",
      "1ki",
      "1K",
      "1i",
      ".5i",
      "0.1mi",
      "0.1am",
      "0x10",
      "1 Gi",
      " 1",
      "1 ",
      "--1",
      "+-1",
      "-+1",
      "1e",
      "1e+",
      "1e-",
      "-3.01e-",
      "1e3.5",
      "1ee3",
      "1E+-3",
      "1e3k",
      "1Gi3",
      "1KiB",
      "1mm",
      "1,5",
      "1_000",
      "\xd9\xa1",
      "1\t",
      "1m ",
      "Infinity",
      "NaN",
      "1e3e3",
      "e",
      std::string("1\0", 2),
      std::string(50, '9') + "x",
      "1e99999999999x",
  };
  for (const std::string& text : cases) {
    Result<Quantity> q = ParseQuantity(text);
    ASSERT_FALSE(q.has_value()) << '"' << text << "\" gave " << Describe(q);
    EXPECT_EQ(q.error().message, "is not a valid quantity") << text;
  }
}

TEST(ParseQuantity, RefusesValuesOutOfRange) {
  const std::string cases[] = {
      "1e1001",
      "10e1000",
      "1e-1001",
      "1e999999999",
      "-1e999999999",
      "1e-999999999",
      "1e99999999999999999999999999999",
      "170141183460469231731687303715884105728",  // 2^127
      "-170141183460469231731687303715884105728",
      "147573952589676412928Ei",  // 2^67 * 2^60
      std::string(10000, '1'),
      "1" + std::string(10000, '0'),
      "0." + std::string(10000, '0') + "1",
  };
  for (const std::string& text : cases) {
    Result<Quantity> q = ParseQuantity(text);
    ASSERT_FALSE(q.has_value()) << text.substr(0, 60) << " gave " << Describe(q);
    EXPECT_EQ(q.error().message, "is out of range") << text.substr(0, 60);
  }
}

TEST(Quantity, CompareByValue) {
  struct Case {
    std::string a, b;
    int want;
  } cases[] = {
      {"1", "1000m", 0},
      {"1", "1e0", 0},
      {"0.001k", "1000000u", 0},
      {"0", "-0", 0},
      {"0", "0Ki", 0},
      {"1Ki", "1k", 1},
      {"1Ki", "1024", 0},
      {"1Mi", "1M", 1},
      {"100m", "50m", 1},
      {"10000T", "100Gi", 1},
      {"-1", "1", -1},
      {"-2", "-1", -1},
      {"-1Ki", "-1k", -1},
      {"-1n", "0", -1},
      {"0", "1n", -1},
      {"1.5", "1499m", 1},
      {"1.5", "1501m", -1},
      {"1e1000", kMaxMantissa, 1},  // aligning exponents would overflow
      {"-1e1000", "-" + kMaxMantissa, -1},
      {"1e-1000", "1e-999", -1},
      {"1e38", kMaxMantissa, -1},  // same leading-digit position, 38 places apart
      {"9e38", kMaxMantissa, 1},
      {"1.70141183460469231731687303715884105727e38", kMaxMantissa, 0},
      {"1.7014118346046923173168730371588410573e38", kMaxMantissa, 1},
      {"1.7014118346046923173168730371588410572e38", kMaxMantissa, -1},
  };
  for (const Case& c : cases) {
    const Quantity a = MustParse(c.a);
    const Quantity b = MustParse(c.b);
    EXPECT_EQ(a.Compare(b), c.want) << c.a << " vs " << c.b;
    EXPECT_EQ(b.Compare(a), -c.want) << c.b << " vs " << c.a;
    EXPECT_EQ(a == b, c.want == 0) << c.a << " == " << c.b;
  }
}

TEST(Quantity, ToMilliRoundsUp) {
  struct Case {
    std::string text;
    std::optional<int64_t> want;
  } cases[] = {
      {"0", 0},
      {"1", 1000},
      {"100m", 100},
      {"1Ki", 1024000},
      {"1n", 1},
      {"0.9n", 1},
      {"1.0001", 1001},
      {"1.5m", 2},
      {"-1.5m", -1},
      {"-1n", 0},
      {"1e-1000", 1},
      {"-1e-1000", 0},
      {"9223372036854775807m", kInt64Max},
      {"9223372036854775.807", kInt64Max},
      {"9223372036854775.8071", std::nullopt},  // the ceiling no longer fits
      {"9223372036854775808m", std::nullopt},
      {"-9223372036854775808m", kInt64Min},
      {"-9223372036854775.8089", kInt64Min},
      {"1e15", 1000000000000000000},
      {"1e16", std::nullopt},
      {"-1e16", std::nullopt},
      {"1e1000", std::nullopt},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(MustParse(c.text).ToMilli(), c.want) << c.text;
  }
}

TEST(Quantity, FromIntMatchesParse) {
  const int64_t cases[] = {0, 1, -1, 10, 1000, 1024, -5000, kInt64Max, kInt64Min};
  for (int64_t v : cases) {
    const Quantity q = Quantity::FromInt(v);
    EXPECT_EQ(q.ToString(), std::to_string(v));
    EXPECT_EQ(q.ToInt64(), v);
    EXPECT_EQ(q, MustParse(std::to_string(v))) << v;
  }
  EXPECT_EQ(Quantity::FromInt(2000), MustParse("2k"));
  EXPECT_TRUE(Quantity().IsZero());
  EXPECT_EQ(Quantity().ToString(), "0");
}

// Plain digits (up to 18) take a shorter path than the general scan; a leading '+' forces the
// general one. Both must hold the same value the same way: it renders, compares and converts
// alike.
TEST(ParseQuantity, PlainDigitsMatchTheGeneralScan) {
  const std::string cases[] = {"0",
                               "00",
                               "1",
                               "7",
                               "007",
                               "10",
                               "100",
                               "1000",
                               "1024",
                               "120",
                               "999999999999999999",
                               "100000000000000000",
                               "123456789012345678",
                               "1234567890123456789"};
  for (const std::string& text : cases) {
    const Quantity plain = MustParse(text), general = MustParse("+" + text);
    EXPECT_EQ(plain, general) << text;
    EXPECT_EQ(plain.ToString(), general.ToString()) << text;
    EXPECT_EQ(plain.ToInt64(), general.ToInt64()) << text;
    EXPECT_EQ(plain.ToMilli(), general.ToMilli()) << text;
    EXPECT_EQ(plain.IsWhole(), general.IsWhole()) << text;
    EXPECT_EQ(plain.IsZero(), general.IsZero()) << text;
    EXPECT_EQ(plain.Compare(MustParse("1")), general.Compare(MustParse("1"))) << text;
  }
}

// Parses every prefix of a few strings, and every one-character mutation of them, checking that
// whatever parses renders to a string that parses back to the same value.
TEST(ParseQuantity, PrefixesAndMutationsRoundTrip) {
  const std::string seeds[] = {
      "-123.456e-7",   "+1.5Ki",
      "0.000000001E",  "12345678901234567890123456789012345678901234567890Mi",
      "1e99999999999", "-9223372036854775.8089",
      ".5e+1000",
  };
  const std::string alphabet = "0159.+-eEikmnuMGTPK x";
  int parsed = 0;
  auto check = [&](const std::string& text) {
    Result<Quantity> q = ParseQuantity(text);
    if (!q) return;
    ++parsed;
    Result<Quantity> again = ParseQuantity(q->ToString());
    ASSERT_TRUE(again.has_value()) << text << " rendered " << q->ToString();
    EXPECT_EQ(again->Compare(*q), 0) << text;
    EXPECT_EQ(again->ToString(), q->ToString()) << text;
    if (std::optional<int64_t> v = q->ToInt64()) {
      EXPECT_EQ(Quantity::FromInt(*v), *q) << text;
    }
  };
  for (const std::string& seed : seeds) {
    for (size_t n = 0; n <= seed.size(); ++n) check(seed.substr(0, n));
    for (size_t i = 0; i < seed.size(); ++i) {
      for (char c : alphabet) {
        std::string mutated = seed;
        mutated[i] = c;
        check(mutated);
      }
    }
  }
  EXPECT_GT(parsed, 100);  // the loop must exercise real values, not only errors
}

}  // namespace
}  // namespace gpugate
