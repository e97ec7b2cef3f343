#include <gtest/gtest.h>

#include "policy/checks.h"
#include "policy/testing.h"

namespace gpugate::policy {
namespace {

using testing::PodBuilder;

constexpr char kKey[] = "tencent.com/vcuda-core-limit";

std::vector<std::string> Check(const PodSpecView& pod) {
  return testing::RunRule(CheckCoreLimitAnnotation, kCoreLimitAnnotationRule, pod, Settings{});
}

TEST(CoreLimitAnnotation, AcceptsOneToHundred) {
  for (const char* value : {"1", "50", "100", "007", "0100"}) {
    EXPECT_EQ(Check(PodBuilder().Annotation(kKey, value).Build()), std::vector<std::string>{})
        << value;
  }
}

TEST(CoreLimitAnnotation, AbsentIsFine) {
  EXPECT_EQ(Check(PodBuilder().Annotation("other", "0").Build()), std::vector<std::string>{});
  EXPECT_EQ(Check(PodBuilder().Build()), std::vector<std::string>{});
}

TEST(CoreLimitAnnotation, RejectsEverythingElse) {
  struct Case {
    std::string value;
    std::string quoted;  // as the message shows it
  } cases[] = {
      {"0", R"("0")"},     {"101", R"("101")"},
      {"+5", R"("+5")"},   {"-1", R"("-1")"},
      {" 5", R"(" 5")"},   {"5 ", R"("5 ")"},
      {"", R"("")"},       {"1.5", R"("1.5")"},
      {"5e1", R"("5e1")"}, {"abc", R"("abc")"},
      {"000", R"("000")"}, {"99999999999999999999", R"("99999999999999999999")"},
      {"5\n", R"("5\n")"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(Check(PodBuilder().Annotation(kKey, c.value).Build()),
              std::vector<std::string>{"metadata.annotations[tencent.com/vcuda-core-limit] " +
                                       c.quoted + " must be an integer from 1 to 100"})
        << c.value;
  }
}

TEST(CoreLimitAnnotation, NamesTheTemplateMetadata) {
  PodSpecView pod = PodBuilder("spec.template.spec", "spec.template.metadata")
                        .Annotation("a", "b")
                        .Annotation(kKey, "200")
                        .Build();
  EXPECT_EQ(
      Check(pod),
      std::vector<std::string>{
          R"(spec.template.metadata.annotations[tencent.com/vcuda-core-limit] "200" must be an integer from 1 to 100)"});
}

}  // namespace
}  // namespace gpugate::policy
