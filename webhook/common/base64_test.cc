#include "common/base64.h"

#include <gtest/gtest.h>

namespace gpugate {
namespace {

// RFC 4648 section 10 test vectors, plus bytes that use '+' and '/'.
struct Vector {
  std::string plain, encoded;
} const kVectors[] = {
    {"", ""},
    {"f", "Zg=="},
    {"fo", "Zm8="},
    {"foo", "Zm9v"},
    {"foob", "Zm9vYg=="},
    {"fooba", "Zm9vYmE="},
    {"foobar", "Zm9vYmFy"},
    {std::string("\xfb\xff\xbf\x00", 4), "+/+/AA=="},
};

TEST(Base64, EncodesRfcVectors) {
  for (const auto& v : kVectors) EXPECT_EQ(Base64Encode(v.plain), v.encoded) << v.plain;
}

TEST(Base64, AppendsAfterWhatIsThere) {
  for (const auto& v : kVectors) {
    std::string out = "patch:";
    AppendBase64(out, v.plain);
    EXPECT_EQ(out, "patch:" + v.encoded) << v.plain;
  }
}

TEST(Base64, DecodesRfcVectors) {
  for (const auto& v : kVectors) {
    auto got = Base64Decode(v.encoded);
    ASSERT_TRUE(got) << v.encoded << ": " << got.error().message;
    EXPECT_EQ(*got, v.plain) << v.encoded;
  }
}

TEST(Base64, RoundTripsEveryByte) {
  std::string all;
  for (int i = 0; i < 256; ++i) all += char(i);
  for (size_t n = 0; n <= all.size(); n += 37) {
    auto back = Base64Decode(Base64Encode(all.substr(0, n)));
    ASSERT_TRUE(back);
    EXPECT_EQ(*back, all.substr(0, n));
  }
}

TEST(Base64, SkipsWhitespaceOfFoldedScalars) {
  auto got = Base64Decode("Zm9v\nYmFy\r\n Zg==\n");
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_EQ(*got, "foobarf");
}

TEST(Base64, RejectsMalformedInputWithOffset) {
  struct Case {
    std::string in, want;
  } cases[] = {
      {"Zm9v!", "invalid base64: unexpected '!' at offset 4"},
      {"Zm9", "invalid base64: truncated (length is not a multiple of 4)"},
      {"Zg", "invalid base64: truncated (length is not a multiple of 4)"},
      {"Z===", "invalid base64: unexpected '=' at offset 1"},
      {"Zg=a", "invalid base64: unexpected 'a' at offset 3"},
      {"Zg==Zm9v", "invalid base64: unexpected 'Z' at offset 4"},
      {"Zm9v-_", "invalid base64: unexpected '-' at offset 4"},  // URL alphabet is not accepted
      {std::string("Zm\x01v", 4), "invalid base64: unexpected a control byte at offset 2"},
  };
  for (const auto& c : cases) {
    auto got = Base64Decode(c.in);
    ASSERT_FALSE(got) << c.in;
    EXPECT_EQ(got.error().message, c.want) << c.in;
  }
}

}  // namespace
}  // namespace gpugate
