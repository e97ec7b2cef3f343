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
