#include "manifest/manifest_reader.h"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include <optional>
#include <utility>

#include "manifest/yaml_to_json.h"

namespace gpugate::manifest {
namespace {

using nlohmann::json;

// "a list", "a string", ... for messages, in the words of the YAML the user wrote.
std::string Describe(const json& value) {
  switch (value.type()) {
    case json::value_t::array:
      return "a list";
    case json::value_t::string:
      return "a string";
    case json::value_t::boolean:
      return "a boolean";
    case json::value_t::null:
      return "null";
    default:
      return "a number";
  }
}

// The kind of the List's items ("Pod" for a PodList, "" for a List), when `object` is a List.
std::optional<std::string> ListItemKind(const json& object) {
  auto kind = object.find("kind");
  auto items = object.find("items");
  if (kind == object.end() || !kind->is_string() || items == object.end() || !items->is_array()) {
    return std::nullopt;
  }
  const std::string& name = kind->get_ref<const std::string&>();
  if (!name.ends_with("List")) return std::nullopt;
  return name.substr(0, name.size() - 4);
}

// The YAML node of item `i` of the List at `node`, for its line; the List's own node when the
// items came from somewhere else (a merge key).
YAML::Node ItemNode(const YAML::Node& node, size_t i) {
  const YAML::Node& list = node;  // const: a lookup must not add the key
  YAML::Node items = list["items"];
  if (!items.IsDefined() || !items.IsSequence() || i >= items.size()) return node;
  return items[i];
}

// Appends `object` to `out`, or its items when it is a List (a typed list's items may leave
// their kind out; they get the list's).
std::optional<ManifestError> AddObject(const YAML::Node& node, json&& object,
                                       const std::string& file, std::vector<ManifestObject>& out) {
  const Location at{file, LineOf(node)};
  if (!object.is_object()) {
    return ManifestError{at, "a Kubernetes object must be a map, got " + Describe(object)};
  }
  std::optional<std::string> itemKind = ListItemKind(object);
  if (!itemKind) {
    out.push_back({at, std::move(object)});
    return std::nullopt;
  }
  json& items = object["items"];
  for (size_t i = 0; i < items.size(); ++i) {
    json& item = items[i];
    if (item.is_object() && !item.contains("kind") && !itemKind->empty()) item["kind"] = *itemKind;
    if (auto error = AddObject(ItemNode(node, i), std::move(item), file, out)) return error;
  }
  return std::nullopt;
}

std::expected<std::vector<ManifestObject>, ManifestError> ParseDocuments(
    const std::vector<YAML::Node>& documents, const std::string& file) {
  std::vector<ManifestObject> out;
  for (const YAML::Node& document : documents) {
    if (document.IsNull()) continue;  // "---" with nothing, or only comments, after it
    auto object = YamlToJson(document);
    if (!object) {
      return std::unexpected(ManifestError{{file, object.error().line}, object.error().message});
    }
    if (auto error = AddObject(document, std::move(*object), file, out)) {
      return std::unexpected(*error);
    }
  }
  return out;
}

}  // namespace

std::expected<std::vector<ManifestObject>, ManifestError> ParseManifests(std::string_view text,
                                                                         const std::string& file) {
  try {
    return ParseDocuments(YAML::LoadAll(std::string(text)), file);
  } catch (const YAML::DeepRecursion& e) {  // its message says only "bad file"
    return std::unexpected(ManifestError{{file, e.mark.line + 1},
                                         "invalid YAML: nested " + std::to_string(e.depth()) +
                                             " levels deep, more than yaml-cpp reads"});
  } catch (const YAML::Exception& e) {
    const int line = e.mark.line >= 0 ? e.mark.line + 1 : 0;
    return std::unexpected(ManifestError{{file, line}, "invalid YAML: " + e.msg});
  }
}

}  // namespace gpugate::manifest
