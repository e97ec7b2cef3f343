#include "config/yaml_cursor.h"

#include <charconv>
#include <utility>
#include <vector>

#include "common/go_duration.h"
#include "common/strings.h"

namespace gpugate::config {
namespace {

int LineOf(const YAML::Node& node) { return node.Mark().line + 1; }  // yaml-cpp counts from 0

bool AllDigits(std::string_view text) {
  return !text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos;
}

// True for text that would be a bool or a number ("2", "-1", "0.01") if it were not quoted.
bool LooksTyped(std::string_view text) {
  if (text == "true" || text == "false") return true;
  if (text.starts_with('-')) text.remove_prefix(1);
  size_t dot = text.find('.');
  if (dot == std::string_view::npos) return AllDigits(text);
  return AllDigits(text.substr(0, dot)) && AllDigits(text.substr(dot + 1));
}

std::string JoinKeys(std::span<const std::string_view> keys) {
  std::string out;
  for (std::string_view k : keys) {
    if (!out.empty()) out += ", ";
    out += k;
  }
  return out;
}

}  // namespace

Cursor::Cursor(YAML::Node node, std::string_view source) : Cursor(node, source, "", LineOf(node)) {}

Cursor::Cursor(YAML::Node node, std::string_view source, std::string path, int line)
    : node_(std::move(node)), source_(source), path_(std::move(path)), line_(line) {}

Cursor Cursor::Entry(std::string_view key, const YAML::Node& keyNode,
                     const YAML::Node& value) const {
  std::string path = path_.empty() ? std::string(key) : path_ + "." + std::string(key);
  return Cursor(value, source_, std::move(path), LineOf(value.IsNull() ? keyNode : value));
}

Cursor Cursor::Item(size_t index, const YAML::Node& value) const {
  int line = value.IsNull() ? line_ : LineOf(value);
  return Cursor(value, source_, path_ + "[" + std::to_string(index) + "]", line);
}

Cursor Cursor::At(const YAML::Node& node) const {
  return Cursor(node, source_, path_, LineOf(node));
}

std::unexpected<Error> Cursor::Fail(std::string_view reason) const {
  std::string msg(source_);
  if (line_ > 0) msg += ":" + std::to_string(line_);
  msg += ": ";
  if (!path_.empty()) msg += path_ + ": ";
  msg += reason;
  return gpugate::Fail(std::move(msg));
}

std::unexpected<Error> Cursor::FailExpected(std::string_view what) const {
  return Fail("must be " + std::string(what) + ", got " + Describe());
}

std::string Cursor::Describe() const {
  switch (node_.Type()) {
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Map:
      return "a map";
    case YAML::NodeType::Scalar:
      break;
    default:
      return "null";
  }
  std::string out = JsonQuote(node_.Scalar());
  if (IsQuoted() && LooksTyped(node_.Scalar())) out += " (a quoted string)";
  return out;
}

bool Cursor::IsQuoted() const {
  // yaml-cpp tags a quoted scalar "!" and an unquoted, untagged one "?".
  return node_.IsScalar() && (node_.Tag() == "!" || node_.Tag() == "tag:yaml.org,2002:str");
}

std::optional<int64_t> Cursor::PlainInteger() const {
  if (!node_.IsScalar() || IsQuoted()) return std::nullopt;
  const std::string& text = node_.Scalar();
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

Status Cursor::ReadString(std::string& out) const {
  if (!node_.IsScalar()) return FailExpected("a string");
  out = node_.Scalar();
  return {};
}

Status Cursor::ReadBool(bool& out) const {
  if (!node_.IsScalar() || IsQuoted()) return FailExpected("true or false");
  const std::string& text = node_.Scalar();
  if (text != "true" && text != "false") return FailExpected("true or false");
  out = text == "true";
  return {};
}

Status Cursor::ReadPositiveInteger(int64_t& out) const {
  auto value = PlainInteger();
  if (!value || *value <= 0) return FailExpected("a positive integer");
  out = *value;
  return {};
}

Status Cursor::ReadDuration(std::chrono::milliseconds min, std::chrono::milliseconds max,
                            std::chrono::milliseconds& out) const {
  const std::string range = "from " + FormatGoDuration(min) + " to " + FormatGoDuration(max);
  if (!node_.IsScalar()) return FailExpected("a duration " + range + ", e.g. \"10s\" or \"250ms\"");
  auto parsed = ParseGoDuration(node_.Scalar());
  if (!parsed) {
    return Fail("must be a duration " + range + ", e.g. \"10s\" or \"250ms\", got " + Describe() +
                ": " + parsed.error().message);
  }
  if (*parsed % std::chrono::milliseconds(1) != std::chrono::microseconds(0)) {
    return FailExpected("a whole number of milliseconds");
  }
  auto value = std::chrono::duration_cast<std::chrono::milliseconds>(*parsed);
  if (value < min || value > max) return FailExpected("a duration " + range);
  out = value;
  return {};
}

Status Cursor::ReadSeconds(int64_t min, int64_t max, std::chrono::milliseconds& out) const {
  auto value = PlainInteger();
  // Keys starting at 1 have always said "a positive integer" below the range; kept as it was.
  if (min == 1 && (!value || *value < 1)) return FailExpected("a positive integer");
  if (!value || *value < min || *value > max) {
    return FailExpected("a number of seconds from " + std::to_string(min) + " to " +
                        std::to_string(max));
  }
  out = std::chrono::seconds(*value);
  return {};
}

Status RefuseBothSpellings(const Cursor& map, std::string_view key, std::string_view olderKey) {
  bool seen = false;
  for (auto it = map.node().begin(); it != map.node().end(); ++it) {
    const std::string& k = it->first.Scalar();
    if (k != key && k != olderKey) continue;
    if (!std::exchange(seen, true)) continue;
    return map.Entry(k, it->first, it->first)
        .Fail("set " + std::string(key) + " or " + std::string(olderKey) + ", not both (" +
              std::string(olderKey) + " is the older spelling, in whole seconds)");
  }
  return {};
}

Status VisitEntries(const Cursor& map,
                    const std::function<Status(const std::string& key, const Cursor& keyAt,
                                               const Cursor& value)>& visit) {
  if (!map.node().IsMap()) return map.FailExpected("a map");
  std::vector<std::pair<std::string, int>> seen;  // key, line
  for (auto it = map.node().begin(); it != map.node().end(); ++it) {
    if (!it->first.IsScalar()) {
      Cursor at = map.At(it->first);
      return at.Fail("keys must be strings, got " + at.Describe());
    }
    const std::string& key = it->first.Scalar();
    Cursor keyAt = map.Entry(key, it->first, it->first);
    for (const auto& [k, line] : seen) {
      if (k == key) return keyAt.Fail("duplicate key (first at line " + std::to_string(line) + ")");
    }
    seen.emplace_back(key, keyAt.line());
    if (auto st = visit(key, keyAt, map.Entry(key, it->first, it->second)); !st) return st;
  }
  return {};
}

Status VisitMap(const Cursor& map, std::span<const std::string_view> known,
                const std::function<Status(size_t, const Cursor&)>& visit) {
  return VisitEntries(
      map, [&](const std::string& key, const Cursor& keyAt, const Cursor& value) -> Status {
        size_t i = 0;
        while (i < known.size() && known[i] != key) ++i;
        if (i == known.size()) return keyAt.Fail("unknown key (known: " + JoinKeys(known) + ")");
        return visit(i, value);
      });
}

Status VisitList(const Cursor& list, const std::function<Status(const Cursor&)>& visit) {
  if (!list.node().IsSequence()) return list.FailExpected("a list");
  size_t index = 0;
  for (auto it = list.node().begin(); it != list.node().end(); ++it, ++index) {
    if (auto st = visit(list.Item(index, *it)); !st) return st;
  }
  return {};
}

}  // namespace gpugate::config
