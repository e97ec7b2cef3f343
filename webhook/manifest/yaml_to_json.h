// YAML -> JSON as kubectl converts a manifest before sending it (sigs.k8s.io/yaml over go-yaml
// v2), so `gpugate check` sees the object the API server, and then the webhook, would see.
//
// Plain (unquoted) scalars are resolved by YAML 1.1 rules: null (~, null, empty), booleans
// (true/false, yes/no, y/n, on/off, in three spellings each), integers (decimal, 0x, 0o, 0b,
// a leading 0 for octal, '_' separators), floats; anything else, and every quoted or block
// scalar, is a string. So `nvidia.com/gpu: 1` is the number 1 and `nvidia.com/gpu: "1"` the
// string "1", as the webhook would receive them. A float is kept as Go's JSON encoder writes
// it: a whole one (1.0, 2e3) becomes an integer. Map keys become strings ("yes" becomes "true",
// as kubectl has it). Merge keys (<<) are applied, explicit keys winning.
//
// Nothing here throws; yaml-cpp's exceptions stay in the .cc.
#pragma once

#include <yaml-cpp/yaml.h>

#include <expected>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace gpugate::manifest {

// A problem with a node, at its 1-based line (0: unknown).
struct LineError {
  int line = 0;
  std::string message;
};

// The JSON value of a plain scalar, resolved as described above. NaN and infinities (.nan, .inf)
// come back as doubles; YamlToJson refuses them, since JSON cannot hold them.
nlohmann::json ResolvePlainScalar(std::string_view text);

// Converts a parsed YAML node. Fails on what kubectl cannot send either (a key that is a list, a
// map or null; NaN or infinity) and on documents that expand, through aliases, past
// kMaxJsonValues values.
std::expected<nlohmann::json, LineError> YamlToJson(const YAML::Node& node);

inline constexpr size_t kMaxJsonValues = 1 << 21;

// The node's 1-based line, 0 when yaml-cpp has no position for it.
int LineOf(const YAML::Node& node);

}  // namespace gpugate::manifest
