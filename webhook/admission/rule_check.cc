#include "admission/rule_check.h"

#include "policy/rule.h"

namespace gpugate::admission {

bool RuleVerdict::Denies() const {
  for (const review::RuleFinding& f : findings) {
    if (f.mode == policy::Mode::kDeny) return true;
  }
  return false;
}

std::string RuleVerdict::DenialReason() const {
  for (const review::RuleFinding& f : findings) {
    if (f.mode == policy::Mode::kDeny) return f.rule;
  }
  return "";
}

std::string RuleVerdict::DenialMessage() const {
  std::string message;
  for (const review::RuleFinding& f : findings) {
    if (f.mode != policy::Mode::kDeny) continue;
    if (!message.empty()) message += "; ";
    message += f.message;
  }
  return message;
}

RuleVerdict JudgeRules(const policy::ObjectView& object, const policy::Settings& settings,
                       std::string_view ns, const policy::NamespaceLabels& labels) {
  RuleVerdict verdict;
  for (policy::Violation& v : policy::Validate(object, settings)) {
    policy::Mode mode = policy::ModeFor(settings.modes, ns, v.rule, labels);
    verdict.findings.push_back({.rule = std::string(v.rule),
                                .message = std::move(v.message),
                                .mode = mode,
                                .subject = std::move(v.subject)});
  }
  return verdict;
}

}  // namespace gpugate::admission
