#include "policy/modes.h"

#include "common/strings.h"
#include "policy/checks.h"
#include "policy/rule.h"

namespace gpugate::policy {
namespace {

const NamespaceModes* EntryFor(const ModeSettings& modes, std::string_view ns) {
  for (const NamespaceModes& entry : modes.namespaces) {
    if (GlobMatch(entry.pattern, ns)) return &entry;
  }
  return nullptr;
}

}  // namespace

std::string_view ModeName(Mode mode) {
  switch (mode) {
    case Mode::kWarn:
      return "warn";
    case Mode::kAudit:
      return "audit";
    case Mode::kDeny:
      break;
  }
  return "deny";
}

std::optional<Mode> ParseMode(std::string_view text) {
  for (Mode mode : {Mode::kDeny, Mode::kWarn, Mode::kAudit}) {
    if (text == ModeName(mode)) return mode;
  }
  return std::nullopt;
}

ParsedLabels ParseNamespaceLabels(std::optional<std::string_view> mode,
                                  std::optional<std::string_view> mutate) {
  ParsedLabels out;
  if (mode) {
    out.labels.mode = ParseMode(*mode);
    if (!out.labels.mode) {
      out.labels.mode = Mode::kDeny;
      out.problem = std::string(kModeLabel) + " " + JsonQuote(*mode) +
                    " is not deny, warn or audit; denying as with deny";
    }
  }
  if (mutate) {
    if (*mutate == "true" || *mutate == "false") {
      out.labels.mutate = *mutate == "true";
    } else {
      if (!out.problem.empty()) out.problem += "; ";
      out.problem += std::string(kMutateLabel) + " " + JsonQuote(*mutate) +
                     " is not \"true\" or \"false\"; ignored";
    }
  }
  return out;
}

Mode ModeFor(const ModeSettings& modes, std::string_view ns, std::string_view rule,
             const NamespaceLabels& labels) {
  if (const NamespaceModes* entry = EntryFor(modes, ns)) {
    if (auto it = entry->rules.find(rule); it != entry->rules.end()) return it->second;
    if (entry->mode) return *entry->mode;
  }
  if (labels.mode) return *labels.mode;
  if (auto it = modes.rules.find(rule); it != modes.rules.end()) return it->second;
  return modes.defaultMode;
}

bool MutatesIn(const ModeSettings& modes, std::string_view ns, const NamespaceLabels& labels) {
  if (const NamespaceModes* entry = EntryFor(modes, ns); entry && entry->mutate) {
    return *entry->mutate;
  }
  return labels.mutate.value_or(true);
}

std::vector<std::string_view> ModeRuleNames() {
  std::vector<std::string_view> names = {kObjectShapeRule};
  for (const Rule& rule : Rules()) names.push_back(rule.name);
  names.push_back(kQuotaRule);
  names.push_back(kBudgetRule);
  return names;
}

}  // namespace gpugate::policy
