// Reading the few fields the commands print from objects they did not decode (manifests for
// `check`, list items for `audit`): never throws, whatever the object holds.
#pragma once

#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace gpugate::cli {

// The string at object[keys[0]][keys[1]]..., "" when missing or not a string.
std::string StringAt(const nlohmann::json& object, std::initializer_list<std::string_view> keys);

// metadata.name, or for an object the API server will name, metadata.generateName.
std::string ObjectName(const nlohmann::json& object);

}  // namespace gpugate::cli
