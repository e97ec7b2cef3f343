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

// Findings as WarningsWithinLimits takes them: rule "r", subject "s<i>", fix "fix it".
std::vector<WarningText> Texts(const std::vector<std::string>& messages) {
  std::vector<WarningText> out;
  for (size_t i = 0; i < messages.size(); ++i) {
    out.push_back(
        {.text = messages[i], .rule = "r", .subject = "s" + std::to_string(i), .fix = "fix it"});
  }
  return out;
}

std::vector<std::string> Sent(const std::vector<std::string>& messages) {
  return WarningsWithinLimits(Texts(messages)).sent;
}

const std::string kMoreRules =
    " not shown (the API limits warnings): their whole text is in gpugate's log and this "
    "request's audit annotations, and gpugate check lists them all";

TEST(WarningsWithinLimits, FewShortMessagesPassAsTheyAre) {
  const std::vector<std::string> in = Numbered(kMaxWarnings, 120);
  EXPECT_EQ(Sent(in), in);
  EXPECT_TRUE(WarningsWithinLimits(Texts(in)).notWhole.empty());
  EXPECT_EQ(Sent({}), std::vector<std::string>{});
}

TEST(WarningsWithinLimits, ALongListIsSummarisedNeverCut) {
  const std::vector<std::string> in = Numbered(40, 100);
  const Warnings got = WarningsWithinLimits(Texts(in));
  ASSERT_EQ(got.sent.size(), kMaxWarnings);
  for (size_t i = 0; i + 1 < got.sent.size(); ++i) {
    EXPECT_EQ(got.sent[i], in[i]) << "whole and in order";
  }
  EXPECT_EQ(got.sent.back(), "and 31 more gpugate warnings" + kMoreRules);
  ASSERT_EQ(got.notWhole.size(), 31u);
  EXPECT_EQ(got.notWhole.front(), 9u);
  EXPECT_EQ(got.notWhole.back(), 39u);
}

TEST(WarningsWithinLimits, TheTotalStaysWithinHalfTheApiServersBudget) {
  // 230-rune messages: the count allows ten, the total only eight and the summary (172 runes,
  // 191 reserved for its count's digits): 8 * 230 + 191 <= 2048 < 9 * 230 + 191.
  const std::vector<std::string> in = Numbered(12, 230);
  const std::vector<std::string> got = Sent(in);
  size_t total = 0;
  for (const std::string& w : got) {
    EXPECT_LE(Runes(w), kWarningMaxRunes);
    total += Runes(w);
  }
  EXPECT_LE(total, kWarningsMaxRunes);
  ASSERT_EQ(got.size(), 9u);
  EXPECT_EQ(got.back().substr(0, 12), "and 4 more g");
}

TEST(WarningsWithinLimits, ALongMessageIsSentShortAndHidesNothingAfterIt) {
  const std::string tooLong = Repeat("y", kWarningMaxRunes + 1);
  // Multi-byte characters count once: 256 of them fit however many bytes they take.
  const std::string wide = Repeat("\xC3\xA9", kWarningMaxRunes);  // é
  EXPECT_EQ(Sent({wide}), std::vector<std::string>{wide});
  const Warnings got = WarningsWithinLimits(Texts({"first", tooLong, "third"}));
  EXPECT_EQ(
      got.sent,
      (std::vector<std::string>{
          "first", "s1: fix it (gpugate rule r; whole text in gpugate's log and audit annotations)",
          "third"}));
  EXPECT_EQ(got.notWhole, std::vector<size_t>{1});
}

// The short form drops where the whole text is, then shortens quoted names, before giving up on
// the subject; the field path itself is never cut.
TEST(ShortWarning, KeepsTheFieldPathTheFixAndTheRuleWithinTheLimit) {
  const std::string name(200, 'n');
  const std::string path = "spec.pytorchReplicaSpecs.Master.template.spec.containers[0]";
  const struct {
    std::string subject;
    std::string want;
  } kCases[] = {
      {"spec.containers[0] \"c\"",
       "spec.containers[0] \"c\": fix it (gpugate rule r; whole text in gpugate's log and audit "
       "annotations)"},
      {path + " \"" + std::string(140, 'n') + "\": env X",
       path + " \"" + std::string(140, 'n') + "\": env X: fix it (gpugate rule r)"},
      {path + " \"" + name + "\": env X", path + " \"" + std::string(12, 'n') + "\xE2\x80\xA6" +
                                              std::string(12, 'n') +
                                              "\": env X: fix it (gpugate rule r)"},
      {std::string(300, 'p'), ""},
  };
  for (const auto& c : kCases) {
    const std::string got = ShortWarning("r", c.subject, "fix it");
    EXPECT_EQ(got, c.want);
    EXPECT_LE(Runes(got), kWarningMaxRunes);
  }
}

TEST(WarningsWithinLimits, AShortFormTooLongItselfBecomesANoticeNamingTheRule) {
  std::vector<WarningText> in = Texts({Repeat("y", 300), "after"});
  in[0].subject = Repeat("p", 300);
  const Warnings got = WarningsWithinLimits(in);
  ASSERT_EQ(got.sent.size(), 2u);
  EXPECT_EQ(got.sent[0],
            "a gpugate r finding too long for a warning: its whole text is in gpugate's log and "
            "this request's audit annotations");
  EXPECT_EQ(got.sent[1], "after");
}

TEST(WarningsWithinLimits, ASummaryOverQuotaFindingsPointsAtGpugateAudit) {
  std::vector<WarningText> in = Texts(Numbered(12, 100));
  in[11].quota = true;
  const Warnings got = WarningsWithinLimits(in);
  EXPECT_EQ(got.sent.back(),
            "and 3 more gpugate warnings not shown (the API limits warnings): their whole text "
            "is in gpugate's log and this request's audit annotations, and gpugate audit lists "
            "them all");
  EXPECT_LE(Runes(got.sent.back()), kWarningMaxRunes);
}

TEST(WarningsWithinLimits, ControlCharactersAndBadUtf8AreReplacedAndDuplicatesSentOnce) {
  const std::string replacement = "\xEF\xBF\xBD";
  EXPECT_EQ(Sent({"a\nb", "tab\tc", "next\xC2\x85line", "bad \xFF byte", "overlong \xC0\xAF",
                  "a\nb", "ok \xE2\x9C\x93", ""}),
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
  // The log line's list: every finding, whole, in order, whatever its mode.
  ASSERT_EQ(notes.findings.size(), 7u);
  EXPECT_EQ(notes.findings[3], (LoggedFinding{"privileged-gpu", "deny", "p1"}));
  EXPECT_EQ(notes.findings[5], (LoggedFinding{"quota", "audit", "q1"}));
}

TEST(NotesFor, AWarningSentShortOrLeftOutIsWholeInTheWarningsAnnotationAndTheLog) {
  const std::string longOne = "spec.containers[0] \"c\": " + Repeat("v", 300);
  std::vector<RuleFinding> findings = {
      {"visible-devices-env", longOne, Mode::kWarn, "spec.containers[0] \"c\": env X", "fix"},
      {"privileged-gpu", "p1", Mode::kWarn},
  };
  for (int i = 0; i < 12; ++i) {
    findings.push_back({"whole-units", "w" + std::to_string(i), Mode::kWarn});
  }
  Notes notes = NotesFor(findings);
  ASSERT_EQ(notes.warnings.size(), kMaxWarnings);
  EXPECT_EQ(notes.warnings[0],
            "spec.containers[0] \"c\": env X: fix (gpugate rule visible-devices-env; whole text in "
            "gpugate's log and audit annotations)");
  EXPECT_EQ(notes.warnings[1], "p1");
  EXPECT_EQ(notes.warnings[8], "w6");
  EXPECT_EQ(notes.warnings[9], "and 5 more gpugate warnings" + kMoreRules);
  ASSERT_EQ(notes.auditAnnotations.size(), 1u);
  EXPECT_EQ(notes.auditAnnotations[0].key, kWarningsAnnotationKey);
  EXPECT_EQ(notes.auditAnnotations[0].value, longOne + "; w7; w8; w9; w10; w11");
  ASSERT_EQ(notes.findings.size(), findings.size());
  EXPECT_EQ(notes.findings[0].message, longOne);
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
  EXPECT_TRUE(IsAuditAnnotationKey(kWarningsAnnotationKey));
  for (std::string_view bad : {"", "-quota", "quota.", "a/b", "has space", "\xC3\xA9"}) {
    EXPECT_FALSE(IsAuditAnnotationKey(bad)) << bad;
  }
  EXPECT_TRUE(IsAuditAnnotationKey(Repeat("a", 63)));
  EXPECT_FALSE(IsAuditAnnotationKey(Repeat("a", 64)));
}

}  // namespace
}  // namespace gpugate::review
