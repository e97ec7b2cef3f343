#include "cli/flags.h"

#include <gtest/gtest.h>

namespace gpugate::cli {
namespace {

constexpr FlagSpec kSpecs[] = {
    {"config"}, {"host"}, {"insecure", false}, {"output", true, 'o'}, {"quiet", false, 'q'}};

TEST(Flags, ParsesForms) {
  std::vector<std::string> args = {"--config", "a.yaml",     "--host=x", "--host",
                                   "y",        "--insecure", "extra"};
  auto flags = Flags::Parse(args, kSpecs);
  ASSERT_TRUE(flags) << flags.error().message;
  EXPECT_EQ(flags->Get("config"), "a.yaml");
  EXPECT_EQ(flags->GetAll("host"), (std::vector<std::string>{"x", "y"}));
  EXPECT_TRUE(flags->Has("insecure"));
  EXPECT_FALSE(flags->Has("missing"));
  EXPECT_EQ(flags->positional(), (std::vector<std::string>{"extra"}));
}

TEST(Flags, ShortAliasesStoreUnderTheLongName) {
  struct Case {
    std::vector<std::string> args;
    std::vector<std::string> output;
  } cases[] = {
      {{"-o", "json"}, {"json"}}, {{"-o=json"}, {"json"}},
      {{"-ojson"}, {"json"}},     {{"--output", "table", "-o", "json"}, {"table", "json"}},
      {{"-o", "-"}, {"-"}},
  };
  for (const auto& c : cases) {
    auto flags = Flags::Parse(c.args, kSpecs);
    ASSERT_TRUE(flags) << c.args[0] << ": " << flags.error().message;
    EXPECT_EQ(flags->GetAll("output"), c.output) << c.args[0];
    EXPECT_EQ(flags->Get("o"), std::nullopt);
  }
  auto flags = Flags::Parse(std::vector<std::string>{"-q", "-", "--"}, kSpecs);
  ASSERT_TRUE(flags) << flags.error().message;
  EXPECT_TRUE(flags->Has("quiet"));
  EXPECT_EQ(flags->positional(), (std::vector<std::string>{"-", "--"}));
}

TEST(Flags, Errors) {
  struct Case {
    std::vector<std::string> args;
    std::string error;
  } cases[] = {
      {{"--nope"}, "unknown flag --nope"},
      {{"--config"}, "flag --config needs a value"},
      {{"--insecure=yes"}, "flag --insecure takes no value"},
      {{"-x"}, "unknown flag -x"},
      {{"-c", "a.yaml"}, "unknown flag -c"},
      {{"-o"}, "flag -o needs a value"},
      {{"-qq"}, "flag -q takes no value"},
  };
  for (const auto& c : cases) {
    auto flags = Flags::Parse(c.args, kSpecs);
    ASSERT_FALSE(flags) << c.error;
    EXPECT_EQ(flags.error().message, c.error);
  }
}

}  // namespace
}  // namespace gpugate::cli
