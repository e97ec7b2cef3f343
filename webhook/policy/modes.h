// What a finding does to an admission, per rule and per namespace: `deny` refuses it, `warn`
// admits it with the message in the response's warnings (kubectl prints "Warning: ..."), `audit`
// admits it with the message in an audit annotation. The config sets a default, a mode per rule
// and overrides per namespace name pattern (config/config_modes.cc); in cluster mode a
// namespace's labels may set them too (cluster/namespace_watch.h). docs/rules.md, "Modes",
// gives the precedence and the reasons.
//
// Pure and read-only once built, like the rest of Settings: safe to share across threads.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpugate::policy {

enum class Mode { kDeny, kWarn, kAudit };

std::string_view ModeName(Mode mode);  // "deny", "warn", "audit"
// Exactly "deny", "warn" or "audit"; nullopt for anything else.
std::optional<Mode> ParseMode(std::string_view text);

// The name quota refusals are configured, counted and annotated under, beside the rule names.
inline constexpr std::string_view kQuotaRule = "quota";
// The name GPU-hour budget refusals are configured, counted and annotated under (usage/budget.h).
inline constexpr std::string_view kBudgetRule = "budget";

// One entry of modes.namespaces: namespaces whose name matches `pattern` ('*' matches any run).
struct NamespaceModes {
  std::string pattern;
  std::optional<Mode> mode;                        // every rule
  std::map<std::string, Mode, std::less<>> rules;  // one rule; wins over `mode`
  std::optional<bool> mutate;                      // false: /mutate patches nothing there
};

struct ModeSettings {
  Mode defaultMode = Mode::kDeny;                  // modes.default
  std::map<std::string, Mode, std::less<>> rules;  // modes.rules: per rule, everywhere
  std::vector<NamespaceModes> namespaces;          // modes.namespaces: the first match applies
};

// What a namespace's labels ask for, read by the cluster's namespace watch. Unset: no such label,
// or the namespace is not known (local mode, or not listed yet).
struct NamespaceLabels {
  std::optional<Mode> mode;    // gpugate.io/mode
  std::optional<bool> mutate;  // gpugate.io/mutate
};

inline constexpr std::string_view kModeLabel = "gpugate.io/mode";
inline constexpr std::string_view kMutateLabel = "gpugate.io/mutate";

// The labels' values as gpugate reads them. A gpugate.io/mode that is not deny, warn or audit
// counts as deny (a typo never loosens the policy); a gpugate.io/mutate that is not "true" or
// "false" is ignored. `problem` says what was wrong, for the log; "" when nothing was.
struct ParsedLabels {
  NamespaceLabels labels;
  std::string problem;
};
ParsedLabels ParseNamespaceLabels(std::optional<std::string_view> mode,
                                  std::optional<std::string_view> mutate);

// The mode of `rule` in namespace `ns`, from the most specific setting that names it:
//   1. the first modes.namespaces entry whose pattern matches `ns`: its rules[rule], else its
//      mode (an entry that sets neither passes on to 2);
//   2. the namespace's label (`labels.mode`);
//   3. modes.rules[rule];
//   4. modes.default.
// The config's namespace entries come first so that an operator can pin a namespace whatever
// its labels say (whoever may label a namespace could otherwise loosen its policy).
Mode ModeFor(const ModeSettings& modes, std::string_view ns, std::string_view rule,
             const NamespaceLabels& labels);

// Whether /mutate patches pods in `ns`: the first matching entry's `mutate`, else the label,
// else true.
bool MutatesIn(const ModeSettings& modes, std::string_view ns, const NamespaceLabels& labels);

// Every name a mode may be set for: each rule of Rules(), object-shape and quota.
std::vector<std::string_view> ModeRuleNames();

// Where the handler learns namespaces' labels: the cluster's namespace watch. Thread-safe.
class NamespaceLabelSource {
 public:
  virtual ~NamespaceLabelSource() = default;
  // The labels of `ns` as last seen; empty before the first list, or for an unknown namespace.
  virtual NamespaceLabels Labels(std::string_view ns) const = 0;
  // False until the first list has arrived; /readyz reports it.
  virtual bool Ready() const = 0;
};

}  // namespace gpugate::policy
