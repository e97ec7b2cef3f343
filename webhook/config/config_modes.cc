// The modes section: what each rule's finding does (deny, warn, audit), by default, per rule and
// per namespace name pattern. docs/configuration.md lists the keys; docs/rules.md, "Modes",
// explains them.
#include <algorithm>
#include <string>
#include <utility>

#include "common/strings.h"
#include "config/config_sections.h"
#include "config/k8s_names.h"
#include "policy/modes.h"

namespace gpugate::config {
namespace {

using policy::Mode;
using policy::ModeSettings;
using policy::NamespaceModes;

Status ReadMode(const Cursor& value, Mode& out) {
  std::string text;
  if (!value.node().IsScalar() || !value.ReadString(text))
    return value.FailExpected("deny, warn or audit");
  std::optional<Mode> mode = policy::ParseMode(text);
  if (!mode) return value.FailExpected("deny, warn or audit");
  out = *mode;
  return {};
}

std::string KnownRules() {
  std::string out;
  for (std::string_view name : policy::ModeRuleNames()) {
    if (!out.empty()) out += ", ";
    out += name;
  }
  return out;
}

// rule name -> mode, every name one of policy::ModeRuleNames().
Status ReadRuleModes(const Cursor& value, std::map<std::string, Mode, std::less<>>& out) {
  const std::vector<std::string_view> known = policy::ModeRuleNames();
  std::map<std::string, Mode, std::less<>> rules;
  auto st = VisitEntries(
      value, [&](const std::string& rule, const Cursor& keyAt, const Cursor& mode) -> Status {
        if (std::find(known.begin(), known.end(), rule) == known.end()) {
          return keyAt.Fail("unknown rule (known: " + KnownRules() + ")");
        }
        return ReadMode(mode, rules[rule]);
      });
  if (!st) return st;
  out = std::move(rules);
  return {};
}

struct NamespaceItem {
  NamespaceModes entry;
  bool hasPattern = false;
};

constexpr Field<NamespaceItem> kNamespaceFields[] = {
    {"pattern",
     [](const Cursor& v, NamespaceItem& item) -> Status {
       std::string text;
       if (auto st = v.ReadString(text); !st) return st;
       if (!IsNamespacePattern(text)) {
         return v.FailExpected(
             "a namespace name, '*' matching any run of characters, such as \"team-*\"");
       }
       item.entry.pattern = std::move(text);
       item.hasPattern = true;
       return {};
     }},
    {"mode",
     [](const Cursor& v, NamespaceItem& item) {
       Mode mode = Mode::kDeny;
       if (auto st = ReadMode(v, mode); !st) return st;
       item.entry.mode = mode;
       return Status{};
     }},
    {"rules",
     [](const Cursor& v, NamespaceItem& item) { return ReadRuleModes(v, item.entry.rules); }},
    {"mutate",
     [](const Cursor& v, NamespaceItem& item) {
       bool mutate = true;
       if (auto st = v.ReadBool(mutate); !st) return st;
       item.entry.mutate = mutate;
       return Status{};
     }},
};

Status ReadNamespaceEntries(const Cursor& value, ModeSettings& out) {
  std::vector<NamespaceModes> entries;
  auto st = VisitList(value, [&](const Cursor& item) -> Status {
    NamespaceItem read;
    if (auto st = ReadFields(item, kNamespaceFields, read); !st) return st;
    if (!read.hasPattern) return item.Fail("needs a pattern");
    const NamespaceModes& e = read.entry;
    if (!e.mode && e.rules.empty() && !e.mutate) {
      return item.Fail("sets nothing; give it a mode, rules or mutate");
    }
    for (size_t i = 0; i < entries.size(); ++i) {
      if (entries[i].pattern == e.pattern) {
        return item.Fail("pattern " + JsonQuote(e.pattern) + " is already listed at " +
                         value.path() + "[" + std::to_string(i) + "]");
      }
    }
    entries.push_back(std::move(read.entry));
    return {};
  });
  if (!st) return st;
  out.namespaces = std::move(entries);
  return {};
}

constexpr Field<ModeSettings> kModeFields[] = {
    {"default", [](const Cursor& v, ModeSettings& m) { return ReadMode(v, m.defaultMode); }},
    {"rules", [](const Cursor& v, ModeSettings& m) { return ReadRuleModes(v, m.rules); }},
    {"namespaces", ReadNamespaceEntries},
};

}  // namespace

// "team-*", "*-prod", "*".
bool IsNamespacePattern(std::string_view s) {
  if (s == "*") return true;
  std::string filled(s);
  std::replace(filled.begin(), filled.end(), '*', 'x');
  return IsDnsLabel(filled);
}

Status ReadModes(const Cursor& value, Config& out) {
  ModeSettings modes;
  if (auto st = ReadFields(value, kModeFields, modes); !st) return st;
  out.policy.modes = std::move(modes);
  return {};
}

}  // namespace gpugate::config
