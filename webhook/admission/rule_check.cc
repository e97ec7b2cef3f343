#include "admission/rule_check.h"

#include <string>

#include "policy/rule.h"

namespace gpugate::admission {

std::optional<review::Decision> CheckRules(const policy::ObjectView& object,
                                           const policy::Settings& settings) {
  const std::vector<policy::Violation> violations = policy::Validate(object, settings);
  if (violations.empty()) return std::nullopt;
  std::string message;
  for (const auto& v : violations) {
    if (!message.empty()) message += "; ";
    message += v.message;
  }
  return review::Denied(std::string(violations.front().rule), std::move(message));
}

}  // namespace gpugate::admission
