#include "common/strings.h"

#include <gtest/gtest.h>

namespace gpugate {
namespace {

TEST(JsonQuote, EscapesControlAndQuotes) {
  struct Case {
    std::string in, want;
  } cases[] = {
      {"plain", R"("plain")"},
      {"a\"b", R"("a\"b")"},
      {"back\\slash", R"("back\\slash")"},
      {"line\nbreak\ttab", R"("line\nbreak\ttab")"},
      {std::string("nul\0x", 5), R"("nul\u0000x")"},
      {"\x1f", R"("\u001f")"},
      {"ünïcode", "\"ünïcode\""},
  };
  for (const auto& c : cases) EXPECT_EQ(JsonQuote(c.in), c.want) << c.in;
}

// Strings are scanned eight bytes at a time: every character that needs escaping, and bytes
// either side of the classes' edges, at every position across two words and a tail.
TEST(JsonQuote, FindsWhatToEscapeAtEveryPosition) {
  const std::string want[] = {"\\\"", "\\\\", "\\n", "\\u0000", "\\u001f", "\\u0001"};
  const char needs[] = {'"', '\\', '\n', '\0', '\x1f', '\x01'};
  const char plain[] = {' ', '!', '#', '[', ']', '\x7f', '\x80', '\xff', '\xa2', '\xdc'};
  for (size_t len = 1; len <= 19; ++len) {
    for (size_t at = 0; at < len; ++at) {
      for (size_t k = 0; k < sizeof needs; ++k) {
        std::string in(len, 'a');
        in[at] = needs[k];
        EXPECT_EQ(JsonQuote(in),
                  "\"" + std::string(at, 'a') + want[k] + std::string(len - at - 1, 'a') + "\"")
            << "length " << len << ", at " << at << ", character " << int(needs[k]);
      }
      for (char c : plain) {
        std::string in(len, 'a');
        in[at] = c;
        EXPECT_EQ(JsonQuote(in), "\"" + in + "\"") << "length " << len << ", at " << at;
      }
    }
  }
}

// Appending to a string that must grow (the quoted text lands after what was there, whatever
// the capacity before), with and without characters to escape.
TEST(AppendJsonString, AppendsAfterTheTextWhereverTheStringGrows) {
  for (size_t before = 0; before <= 40; ++before) {
    for (size_t len = 0; len <= 70; len += 7) {
      for (const bool escaped : {false, true}) {
        std::string out(before, 'x');
        out.shrink_to_fit();
        std::string in(len, 'a');
        if (escaped && len > 0) in[len / 2] = '"';
        AppendJsonString(out, in);
        EXPECT_EQ(out, std::string(before, 'x') + JsonQuote(in))
            << "before " << before << ", length " << len;
      }
    }
  }
}

TEST(QueryEscape, KeepsOnlyUnreservedCharacters) {
  struct Case {
    std::string in, want;
  } cases[] = {
      {"abcXYZ019-._~", "abcXYZ019-._~"},
      {"eyJydiI6MTB9", "eyJydiI6MTB9"},
      {"a+b/c=", "a%2Bb%2Fc%3D"},
      {"x y&z=%", "x%20y%26z%3D%25"},
      {"\xc3\xbc", "%C3%BC"},
      {"", ""},
  };
  for (const auto& c : cases) EXPECT_EQ(QueryEscape(c.in), c.want) << c.in;
}

TEST(GlobMatch, Table) {
  struct Case {
    const char* pattern;
    const char* text;
    bool want;
  } cases[] = {
      {"nvidia.com/mig-*", "nvidia.com/mig-1g.5gb", true},
      {"nvidia.com/mig-*", "nvidia.com/mig-", true},
      {"nvidia.com/mig-*", "nvidia.com/gpu", false},
      {"volcano.sh/vgpu-*", "volcano.sh/vgpu-memory", true},
      {"*", "anything", true},
      {"a*b*c", "axxbyyc", true},
      {"a*b*c", "axxbyy", false},
      {"exact", "exact", true},
      {"exact", "exactly", false},
  };
  for (const auto& c : cases)
    EXPECT_EQ(GlobMatch(c.pattern, c.text), c.want) << c.pattern << " ~ " << c.text;
}

}  // namespace
}  // namespace gpugate
