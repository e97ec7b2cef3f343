#include "webhook_rules.h"

#include <algorithm>
#include <string>
#include <vector>

namespace gpugate::testing {
namespace {

std::vector<std::string> Strings(const YAML::Node& node) {
  std::vector<std::string> out;
  if (!node.IsDefined() || !node.IsSequence()) return out;
  for (const YAML::Node& item : node) {
    if (item.IsScalar()) out.push_back(item.Scalar());
  }
  return out;
}

YAML::Node Field(const YAML::Node& node, const char* key) {
  return node.IsDefined() && node.IsMap() ? node[key] : YAML::Node(YAML::NodeType::Undefined);
}

}  // namespace

bool ResourceMatches(std::string_view entry, std::string_view resource) {
  if (entry == resource || entry == "*/*") return true;
  const size_t slash = resource.find('/');
  if (slash == std::string_view::npos) return entry == "*";
  const std::string_view parent = resource.substr(0, slash), sub = resource.substr(slash + 1);
  return entry == std::string(parent) + "/*" || entry == "*/" + std::string(sub);
}

bool Covers(const YAML::Node& webhook, const ApiResource& r, std::string_view operation) {
  auto matches = [](const YAML::Node& list, std::string_view value) {
    const std::vector<std::string> values = Strings(list);
    return std::find(values.begin(), values.end(), value) != values.end() ||
           std::find(values.begin(), values.end(), "*") != values.end();
  };
  const YAML::Node rules = Field(webhook, "rules");
  if (!rules.IsDefined() || !rules.IsSequence()) return false;
  for (const YAML::Node& rule : rules) {
    const std::vector<std::string> resources = Strings(Field(rule, "resources"));
    const bool resourceMatches =
        std::any_of(resources.begin(), resources.end(),
                    [&](const std::string& e) { return ResourceMatches(e, r.resource); });
    if (matches(Field(rule, "apiGroups"), r.group) &&
        matches(Field(rule, "apiVersions"), r.version) && resourceMatches &&
        matches(Field(rule, "operations"), operation)) {
      return true;
    }
  }
  return false;
}

}  // namespace gpugate::testing
