#include "policy/modes.h"

#include <gtest/gtest.h>

namespace gpugate::policy {
namespace {

// modes: {default: audit, rules: {quota: deny}, namespaces: [
//   {pattern: "team-*", rules: {privileged-gpu: deny}, mode: warn},
//   {pattern: "lab", mutate: false},
//   {pattern: "*-prod", mode: deny}]}
ModeSettings Example() {
  ModeSettings modes;
  modes.defaultMode = Mode::kAudit;
  modes.rules = {{"quota", Mode::kDeny}};
  modes.namespaces = {
      {.pattern = "team-*", .mode = Mode::kWarn, .rules = {{"privileged-gpu", Mode::kDeny}}},
      {.pattern = "lab", .mutate = false},
      {.pattern = "*-prod", .mode = Mode::kDeny},
  };
  return modes;
}

TEST(ModeFor, TheMostSpecificSettingDecides) {
  const NamespaceLabels none;
  const NamespaceLabels warnLabel{.mode = Mode::kWarn};
  const NamespaceLabels denyLabel{.mode = Mode::kDeny};
  const struct {
    const char* ns;
    const char* rule;
    NamespaceLabels labels;
    Mode want;
    const char* why;
  } kCases[] = {
      {"team-a", "privileged-gpu", none, Mode::kDeny, "the entry's rules"},
      {"team-a", "whole-units", none, Mode::kWarn, "the entry's mode"},
      {"team-a", "quota", denyLabel, Mode::kWarn, "the entry's mode wins over label and rules"},
      // The first match only: team-prod matches team-* before *-prod.
      {"team-prod", "whole-units", none, Mode::kWarn, "the first matching entry"},
      {"web-prod", "whole-units", warnLabel, Mode::kDeny, "a later entry, over the label"},
      {"lab", "whole-units", warnLabel, Mode::kWarn, "an entry without modes: the label"},
      {"lab", "quota", none, Mode::kDeny, "an entry without modes, no label: modes.rules"},
      {"other", "quota", warnLabel, Mode::kWarn, "the label wins over modes.rules"},
      {"other", "quota", none, Mode::kDeny, "modes.rules"},
      {"other", "scheduler", none, Mode::kAudit, "modes.default"},
      {"", "scheduler", none, Mode::kAudit, "no namespace: the defaults"},
  };
  const ModeSettings modes = Example();
  for (const auto& c : kCases) {
    EXPECT_EQ(ModeFor(modes, c.ns, c.rule, c.labels), c.want)
        << c.ns << " " << c.rule << ": " << c.why;
  }
  EXPECT_EQ(ModeFor(ModeSettings{}, "team-a", "quota", none), Mode::kDeny)
      << "the built-in default";
}

TEST(MutatesIn, EntryThenLabelThenOn) {
  const ModeSettings modes = Example();
  EXPECT_FALSE(MutatesIn(modes, "lab", {.mutate = true}));
  EXPECT_TRUE(MutatesIn(modes, "team-a", {}));  // team-* says nothing about mutation
  EXPECT_FALSE(MutatesIn(modes, "team-a", {.mutate = false}));
  EXPECT_TRUE(MutatesIn(modes, "other", {}));
}

TEST(ParseNamespaceLabels, ReadsValuesAndNeverLoosensOnATypo) {
  const struct {
    std::optional<std::string_view> mode, mutate;
    std::optional<Mode> wantMode;
    std::optional<bool> wantMutate;
    std::string problem;
  } kCases[] = {
      {std::nullopt, std::nullopt, std::nullopt, std::nullopt, ""},
      {"warn", "false", Mode::kWarn, false, ""},
      {"audit", "true", Mode::kAudit, true, ""},
      {"deny", std::nullopt, Mode::kDeny, std::nullopt, ""},
      {"Warn", std::nullopt, Mode::kDeny, std::nullopt,
       R"(gpugate.io/mode "Warn" is not deny, warn or audit; denying as with deny)"},
      {"", "no", Mode::kDeny, std::nullopt,
       R"(gpugate.io/mode "" is not deny, warn or audit; denying as with deny; )"
       R"(gpugate.io/mutate "no" is not "true" or "false"; ignored)"},
  };
  for (const auto& c : kCases) {
    ParsedLabels got = ParseNamespaceLabels(c.mode, c.mutate);
    EXPECT_EQ(got.labels.mode, c.wantMode) << c.mode.value_or("(none)");
    EXPECT_EQ(got.labels.mutate, c.wantMutate) << c.mutate.value_or("(none)");
    EXPECT_EQ(got.problem, c.problem);
  }
}

TEST(ModeNames, RoundTripAndCoverEveryRule) {
  for (Mode mode : {Mode::kDeny, Mode::kWarn, Mode::kAudit}) {
    EXPECT_EQ(ParseMode(ModeName(mode)), mode);
  }
  EXPECT_EQ(ParseMode("enforce"), std::nullopt);
  EXPECT_EQ(ModeRuleNames(),
            (std::vector<std::string_view>{"object-shape", "whole-units", "requests-equal-limits",
                                           "max-per-container", "vcuda-core-shares",
                                           "core-limit-annotation", "visible-devices-env",
                                           "privileged-gpu", "scheduler", "quota", "budget"}));
}

}  // namespace
}  // namespace gpugate::policy
