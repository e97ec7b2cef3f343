// Reading a YAML tree strictly, with every message naming the file, the line and the key path:
//   "gpugate.yaml:7: resources[1].maxPerContainer: must be a positive integer, got "two""
// Internal to the config library. Nothing here throws: only yaml-cpp's parser can, and
// ParseConfig catches that. Every Read* writes its output only on success.
#pragma once

#include <yaml-cpp/yaml.h>

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "common/result.h"

namespace gpugate::config {

// A node and where it sits: the source name, the dotted path ("mutation.tolerations[0].key")
// and its 1-based line. Cheap to copy; yaml-cpp nodes are shared handles.
class Cursor {
 public:
  // The document root; its path is empty.
  Cursor(YAML::Node node, std::string_view source);

  const YAML::Node& node() const { return node_; }
  const std::string& path() const { return path_; }
  int line() const { return line_; }

  // The value of map entry `key` ("a.key"). An empty value reports the key's line, since
  // yaml-cpp places a missing value at the next token, often on a later line.
  Cursor Entry(std::string_view key, const YAML::Node& keyNode, const YAML::Node& value) const;
  // Item `index` of a list ("a[index]").
  Cursor Item(size_t index, const YAML::Node& value) const;
  // Another node (a map's key, say) reported under this cursor's path.
  Cursor At(const YAML::Node& node) const;

  // "<source>:<line>: <path>: <reason>"; the path part is left out at the root.
  std::unexpected<Error> Fail(std::string_view reason) const;
  // "must be <what>, got <the value>".
  std::unexpected<Error> FailExpected(std::string_view what) const;
  // The value for messages: a quoted scalar, "null", "a list" or "a map".
  std::string Describe() const;

  // True for a scalar written as a string ("1", '1', !!str 1), which is never a bool or number.
  bool IsQuoted() const;
  // The value of an unquoted decimal integer scalar, if it is one and fits in int64_t.
  std::optional<int64_t> PlainInteger() const;

  Status ReadString(std::string& out) const;  // any scalar, "" included
  Status ReadBool(bool& out) const;           // exactly true or false, unquoted
  Status ReadPositiveInteger(int64_t& out) const;
  // A duration in Go's syntax ("10s", "250ms", "1m30s"), a whole number of milliseconds from
  // `min` to `max`. A bare number is refused: "10" could mean seconds or milliseconds.
  Status ReadDuration(std::chrono::milliseconds min, std::chrono::milliseconds max,
                      std::chrono::milliseconds& out) const;
  // The older spelling of a duration: an unquoted integer number of seconds from `min` to `max`.
  Status ReadSeconds(int64_t min, int64_t max, std::chrono::milliseconds& out) const;

 private:
  Cursor(YAML::Node node, std::string_view source, std::string path, int line);

  YAML::Node node_;
  std::string_view source_;  // not owned; outlives every cursor made while parsing
  std::string path_;
  int line_;  // 1-based; 0 when yaml-cpp has no position
};

// Walks the entries of a map whose keys the user chooses (namespaces, resource names). Rejects
// a value that is not a map, keys that are not scalars and duplicate keys, then calls `visit`
// with each key, a cursor on the key (for messages about the key itself) and the value's
// cursor, stopping at the first error.
Status VisitEntries(const Cursor& map,
                    const std::function<Status(const std::string& key, const Cursor& keyAt,
                                               const Cursor& value)>& visit);

// Walks the entries of a map. Rejects a value that is not a map, keys that are not scalars,
// duplicate keys and keys not in `known` ("unknown key (known: a, b)"), then calls `visit`
// with the index in `known` of each key and the value's cursor, stopping at the first error.
Status VisitMap(const Cursor& map, std::span<const std::string_view> known,
                const std::function<Status(size_t, const Cursor&)>& visit);

// Fails when `map` sets both `key` and `olderKey`, two spellings of one setting (the older one
// counting whole seconds), at the line of whichever comes second.
Status RefuseBothSpellings(const Cursor& map, std::string_view key, std::string_view olderKey);

// Calls `visit` for each item of a list, stopping at the first error; rejects non-lists.
Status VisitList(const Cursor& list, const std::function<Status(const Cursor&)>& visit);

// One known key of a map and the function that reads its value into a T.
template <typename T>
struct Field {
  std::string_view key;
  Status (*read)(const Cursor& value, T& out);
};

// Reads a map through a table of fields, so a section is its table plus one function per key.
template <typename T, size_t N>
Status ReadFields(const Cursor& map, const Field<T> (&fields)[N], T& out) {
  std::array<std::string_view, N> keys;
  for (size_t i = 0; i < N; ++i) keys[i] = fields[i].key;
  return VisitMap(map, keys,
                  [&](size_t i, const Cursor& value) { return fields[i].read(value, out); });
}

}  // namespace gpugate::config
