#include "review/notes.h"

#include <gtest/gtest.h>

namespace gpugate::review {
namespace {

using policy::Mode;

std::string Repeat(std::string_view unit, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) out += unit;
  return out;
}

// Runes in a valid UTF-8 string.
size_t Runes(std::string_view s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

std::vector<std::string> Numbered(size_t n, size_t width) {
  std::vector<std::string> out;
  for (size_t i = 0; i < n; ++i) {
    std::string m = "message " + std::to_string(i) + " ";
    out.push_back(m + Repeat("x", width - m.size()));
  }
  return out;
}

TEST(WarningsWithinLimits, FewShortMessagesPassAsTheyAre) {
  const std::vector<std::string> in = Numbered(kMaxWarnings, 120);
  EXPECT_EQ(WarningsWithinLimits(in), in);
  EXPECT_EQ(WarningsWithinLimits({}), std::vector<std::string>{});
}

TEST(WarningsWithinLimits, ALongListIsSummarisedNeverCut) {
  const std::vector<std::string> in = Numbered(40, 100);
  const std::vector<std::string> got = WarningsWithinLimits(in);
  ASSERT_EQ(got.size(), kMaxWarnings);
  for (size_t i = 0; i + 1 < got.size(); ++i) EXPECT_EQ(got[i], in[i]) << "whole and in order";
  EXPECT_EQ(got.back(),
            "and 31 more gpugate warnings not shown (the API limits warnings); gpugate check "
            "lists them all");
}

TEST(WarningsWithinLimits, TheTotalStaysWithinHalfTheApiServersBudget) {
  // 230-rune messages: the count allows ten, the total only eight and the summary.
  const std::vector<std::string> in = Numbered(12, 230);
  const std::vector<std::string> got = WarningsWithinLimits(in);
  size_t total = 0;
  for (const std::string& w : got) {
    EXPECT_LE(Runes(w), kWarningMaxRunes);
    total += Runes(w);
  }
  EXPECT_LE(total, kWarningsMaxRunes);
  ASSERT_EQ(got.size(), 9u);
  EXPECT_EQ(got.back().substr(0, 12), "and 4 more g");
}

TEST(WarningsWithinLimits, AMessageOverTheItemLimitIsCountedNotCut) {
  const std::string tooLong = Repeat("y", kWarningMaxRunes + 1);
  // Multi-byte characters count once: 256 of them fit however many bytes they take.
  const std::string wide = Repeat("\xC3\xA9", kWarningMaxRunes);  // é
  EXPECT_EQ(WarningsWithinLimits({wide}), std::vector<std::string>{wide});
  EXPECT_EQ(WarningsWithinLimits({"first", tooLong, "third"}),
            (std::vector<std::string>{"first",
                                      "and 2 more gpugate warnings not shown (the API "
                                      "limits warnings); gpugate check lists them all"}));
}

TEST(WarningsWithinLimits, ControlCharactersAndBadUtf8AreReplacedAndDuplicatesSentOnce) {
  const std::string replacement = "\xEF\xBF\xBD";
  EXPECT_EQ(WarningsWithinLimits({"a\nb", "tab\tc", "next\xC2\x85line", "bad \xFF byte",
                                  "overlong \xC0\xAF", "a\nb", "ok \xE2\x9C\x93", ""}),
            (std::vector<std::string>{"a" + replacement + "b", "tab" + replacement + "c",
                                      "next" + replacement + "line", "bad " + replacement + " byte",
                                      "overlong " + replacement + replacement, "ok \xE2\x9C\x93"}));
}

TEST(NotesFor, WarnAuditAndTheTallyOfEveryFinding) {
  const RuleFinding findings[] = {
      {"whole-units", "w1", Mode::kWarn}, {"scheduler", "s1", Mode::kAudit},
      {"whole-units", "w2", Mode::kWarn}, {"privileged-gpu", "p1", Mode::kDeny},
      {"scheduler", "s2", Mode::kAudit},  {"quota", "q1", Mode::kAudit},
      {"whole-units", "w1", Mode::kWarn},  // the same message again: one warning
  };
  Notes notes = NotesFor(findings);
  EXPECT_EQ(notes.warnings, (std::vector<std::string>{"w1", "w2"}));
  EXPECT_EQ(notes.auditAnnotations,
            (std::vector<AuditAnnotation>{{"quota", "q1"}, {"scheduler", "s1; s2"}}));
  EXPECT_EQ(notes.violated, (std::vector<ViolatedRule>{{"privileged-gpu", "deny"},
                                                       {"quota", "audit"},
                                                       {"scheduler", "audit"},
                                                       {"whole-units", "warn"}}));
}

TEST(NotesFor, AnAuditValueKeepsWholeMessagesUpToItsBound) {
  std::vector<RuleFinding> findings;
  for (int i = 0; i < 60; ++i) {
    findings.push_back({"whole-units", std::to_string(i) + Repeat("z", 98), Mode::kAudit});
  }
  Notes notes = NotesFor(findings);
  ASSERT_EQ(notes.auditAnnotations.size(), 1u);
  const std::string& value = notes.auditAnnotations[0].value;
  EXPECT_LE(value.size(), kAuditValueMaxBytes + 20);
  // 99- and 100-byte messages and "; ": 40 fit in 4096 bytes, then the count of the rest.
  EXPECT_EQ(value.substr(value.size() - 16), "zzz; and 20 more");
}

TEST(IsAuditAnnotationKey, EveryRuleNameIsAValidKey) {
  for (std::string_view rule : policy::ModeRuleNames()) EXPECT_TRUE(IsAuditAnnotationKey(rule));
  for (std::string_view bad : {"", "-quota", "quota.", "a/b", "has space", "\xC3\xA9"}) {
    EXPECT_FALSE(IsAuditAnnotationKey(bad)) << bad;
  }
  EXPECT_TRUE(IsAuditAnnotationKey(Repeat("a", 63)));
  EXPECT_FALSE(IsAuditAnnotationKey(Repeat("a", 64)));
}

}  // namespace
}  // namespace gpugate::review
