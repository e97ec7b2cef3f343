#include "cli/object_fields.h"

namespace gpugate::cli {

std::string StringAt(const nlohmann::json& object, std::initializer_list<std::string_view> keys) {
  const nlohmann::json* at = &object;
  for (std::string_view key : keys) {
    if (!at->is_object()) return "";
    auto it = at->find(key);
    if (it == at->end()) return "";
    at = &*it;
  }
  return at->is_string() ? at->get<std::string>() : "";
}

std::string ObjectName(const nlohmann::json& object) {
  std::string name = StringAt(object, {"metadata", "name"});
  return name.empty() ? StringAt(object, {"metadata", "generateName"}) : name;
}

}  // namespace gpugate::cli
