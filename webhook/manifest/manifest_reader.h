// Kubernetes objects from manifest text, for `gpugate check`: YAML with any number of documents
// (what kubectl applies, and the output of `helm template` and `kubectl kustomize`: `---`
// separators, `# Source:` comments, empty documents) or JSON. A List (`kind: List`, or any kind
// ending in "List" with an `items` array) yields its items. Each object carries the line where
// its document's, or its item's, content starts, for messages.
//
// The JSON is what kubectl would send (manifest/yaml_to_json.h). Nothing here throws.
#pragma once

#include <expected>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace gpugate::manifest {

// Where something is: the file as the user named it ("-" for standard input) and the 1-based
// line (0: the file as a whole).
struct Location {
  std::string file;
  int line = 0;
};

struct ManifestObject {
  Location at;
  nlohmann::json object;
};

// Input that cannot be read as manifests, e.g.
//   {{"app.yaml", 7}, "invalid YAML: end of map not found"}
struct ManifestError {
  Location at;
  std::string message;
};

// Every object in `text`, in document order, List items in their order. The first problem
// (a YAML syntax error, a document that is not a map, a value JSON cannot hold) fails the
// whole text: a file half read would hide whatever the rest held.
std::expected<std::vector<ManifestObject>, ManifestError> ParseManifests(std::string_view text,
                                                                         const std::string& file);

}  // namespace gpugate::manifest
