// The modes section: values read into policy::ModeSettings, and every mistake refused with its
// line, key path and reason.
#include <gtest/gtest.h>

#include "config/config.h"
#include "config/testing.h"

namespace gpugate::config {
namespace {

using policy::Mode;
using testing::ExpectErrors;

TEST(ConfigModes, DefaultIsDenyEverywhere) {
  auto empty = ParseConfig("", "gpugate.yaml");
  ASSERT_TRUE(empty);
  EXPECT_EQ(empty->policy.modes.defaultMode, Mode::kDeny);
  EXPECT_TRUE(empty->policy.modes.rules.empty());
  EXPECT_TRUE(empty->policy.modes.namespaces.empty());
}

TEST(ConfigModes, ReadsDefaultRulesAndNamespacesInOrder) {
  auto got = ParseConfig(R"(
modes:
  default: audit
  rules:
    quota: warn
    privileged-gpu: deny
  namespaces:
    - pattern: "team-*"
      mode: warn
      rules: {object-shape: deny}
    - pattern: lab
      mutate: false
    - pattern: "*"
      mode: deny
)",
                         "gpugate.yaml");
  ASSERT_TRUE(got) << got.error().message;
  const policy::ModeSettings& modes = got->policy.modes;
  EXPECT_EQ(modes.defaultMode, Mode::kAudit);
  EXPECT_EQ(modes.rules, (std::map<std::string, Mode, std::less<>>{{"privileged-gpu", Mode::kDeny},
                                                                   {"quota", Mode::kWarn}}));
  ASSERT_EQ(modes.namespaces.size(), 3u);
  EXPECT_EQ(modes.namespaces[0].pattern, "team-*");
  EXPECT_EQ(modes.namespaces[0].mode, Mode::kWarn);
  EXPECT_EQ(modes.namespaces[0].rules.at("object-shape"), Mode::kDeny);
  EXPECT_EQ(modes.namespaces[0].mutate, std::nullopt);
  EXPECT_EQ(modes.namespaces[1].pattern, "lab");
  EXPECT_EQ(modes.namespaces[1].mode, std::nullopt);
  EXPECT_EQ(modes.namespaces[1].mutate, false);
  EXPECT_EQ(modes.namespaces[2].pattern, "*");
}

TEST(ConfigModes, Errors) {
  ExpectErrors({
      {"modes: warn\n", "gpugate.yaml:1: modes: must be a map, got \"warn\""},
      {"modes:\n  default: Warn\n",
       "gpugate.yaml:2: modes.default: must be deny, warn or audit, got \"Warn\""},
      {"modes:\n  default: [warn]\n",
       "gpugate.yaml:2: modes.default: must be deny, warn or audit, got a list"},
      {"modes:\n  enforce: deny\n",
       "gpugate.yaml:2: modes.enforce: unknown key (known: default, rules, namespaces)"},
      {"modes:\n  rules:\n    whole-unit: warn\n",
       "gpugate.yaml:3: modes.rules.whole-unit: unknown rule (known: object-shape, whole-units, "
       "requests-equal-limits, max-per-container, vcuda-core-shares, core-limit-annotation, "
       "visible-devices-env, privileged-gpu, scheduler, quota, budget)"},
      {"modes:\n  rules:\n    quota: off\n",
       "gpugate.yaml:3: modes.rules.quota: must be deny, warn or audit, got \"off\""},
      {"modes:\n  namespaces: {team-a: warn}\n",
       "gpugate.yaml:2: modes.namespaces: must be a list, got a map"},
      {"modes:\n  namespaces:\n    - mode: warn\n",
       "gpugate.yaml:3: modes.namespaces[0]: needs a pattern"},
      {"modes:\n  namespaces:\n    - pattern: team-a\n",
       "gpugate.yaml:3: modes.namespaces[0]: sets nothing; give it a mode, rules or mutate"},
      {"modes:\n  namespaces:\n    - {pattern: Team_A, mode: warn}\n",
       "gpugate.yaml:3: modes.namespaces[0].pattern: must be a namespace name, '*' matching any "
       "run of characters, such as \"team-*\", got \"Team_A\""},
      {"modes:\n  namespaces:\n    - {pattern: a, mode: warn}\n    - {pattern: a, mutate: false}\n",
       "gpugate.yaml:4: modes.namespaces[1]: pattern \"a\" is already listed at "
       "modes.namespaces[0]"},
      {"modes:\n  namespaces:\n    - {pattern: a, mutate: no}\n",
       "gpugate.yaml:3: modes.namespaces[0].mutate: must be true or false, got \"no\""},
      {"modes:\n  namespaces:\n    - {pattern: a, rules: {quota: loud}}\n",
       "gpugate.yaml:3: modes.namespaces[0].rules.quota: must be deny, warn or audit, got "
       "\"loud\""},
      {"modes:\n  namespaces:\n    - {pattern: a, labels: {}}\n",
       "gpugate.yaml:3: modes.namespaces[0].labels: unknown key (known: pattern, mode, rules, "
       "mutate)"},
  });
}

}  // namespace
}  // namespace gpugate::config
