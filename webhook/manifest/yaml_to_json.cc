#include "manifest/yaml_to_json.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <optional>
#include <regex>
#include <utility>
#include <vector>

namespace gpugate::manifest {
namespace {

using nlohmann::json;

// go-yaml v2's resolve table: plain scalars it maps by spelling (YAML 1.1).
constexpr std::string_view kTrue[] = {"y",    "Y",    "yes", "Yes", "YES", "true",
                                      "True", "TRUE", "on",  "On",  "ON"};
constexpr std::string_view kFalse[] = {"n",     "N",     "no",  "No",  "NO", "false",
                                       "False", "FALSE", "off", "Off", "OFF"};
constexpr std::string_view kNull[] = {"", "~", "null", "Null", "NULL"};
constexpr std::string_view kNan[] = {".nan", ".NaN", ".NAN"};
constexpr std::string_view kInfinity[] = {".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"};
constexpr std::string_view kMinusInfinity[] = {"-.inf", "-.Inf", "-.INF"};

template <size_t N>
bool OneOf(std::string_view text, const std::string_view (&spellings)[N]) {
  for (std::string_view s : spellings) {
    if (s == text) return true;
  }
  return false;
}

std::optional<json> ResolveSpelling(std::string_view text) {
  if (OneOf(text, kTrue)) return json(true);
  if (OneOf(text, kFalse)) return json(false);
  if (OneOf(text, kNull)) return json(nullptr);
  if (OneOf(text, kNan)) return json(std::nan(""));
  if (OneOf(text, kInfinity)) return json(HUGE_VAL);
  if (OneOf(text, kMinusInfinity)) return json(-HUGE_VAL);
  return std::nullopt;
}

// Go's strconv.ParseUint(s, 0, 64) for a string without sign: 0x, 0o, 0b or a leading 0 (octal)
// pick the base.
std::optional<uint64_t> ParseUnsignedBase0(std::string_view s) {
  int base = 10;
  if (s.size() > 1 && s[0] == '0') {
    const char p = static_cast<char>(s[1] | 0x20);
    base = p == 'x' ? 16 : p == 'o' ? 8 : p == 'b' ? 2 : 8;
    s.remove_prefix(base == 8 && p != 'o' ? 1 : 2);
  }
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value, base);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return value;
}

// Go's strconv.ParseInt(s, 0, 64).
std::optional<int64_t> ParseSignedBase0(std::string_view s) {
  const bool negative = !s.empty() && s[0] == '-';
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
  auto magnitude = ParseUnsignedBase0(s);
  if (!magnitude) return std::nullopt;
  constexpr uint64_t kMax = static_cast<uint64_t>(INT64_MAX);
  if (negative) {
    if (*magnitude > kMax + 1) return std::nullopt;
    return static_cast<int64_t>(0 - *magnitude);
  }
  if (*magnitude > kMax) return std::nullopt;
  return static_cast<int64_t>(*magnitude);
}

std::optional<double> ParseDecimalFloat(std::string_view s) {
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  double value = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return value;
}

// A float as Go's encoding/json writes it: a whole number below 1e21 without a decimal point,
// which the API server then reads back as an integer.
json FloatValue(double d) {
  if (std::isfinite(d) && d == std::trunc(d) && std::fabs(d) < 1e21) {
    if (d >= -9.2e18 && d <= 9.2e18) return static_cast<int64_t>(d);
    if (d > 0 && d < 1.8e19) return static_cast<uint64_t>(d);
  }
  return d;
}

// go-yaml v2, for a scalar starting with a digit, '+' or '-'.
json ResolveNumber(std::string_view text) {
  std::string plain(text);
  std::erase(plain, '_');
  if (auto i = ParseSignedBase0(plain)) return *i;
  if (plain[0] != '+' && plain[0] != '-') {
    if (auto u = ParseUnsignedBase0(plain)) return *u;
  }
  static const std::regex kYamlStyleFloat(
      R"(^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$)");
  if (std::regex_match(plain, kYamlStyleFloat)) {
    if (auto d = ParseDecimalFloat(plain)) return FloatValue(*d);
  }
  return std::string(text);
}

constexpr std::string_view kYamlTag = "tag:yaml.org,2002:";

// A scalar's JSON value. Plain scalars (yaml-cpp's tag "?") and the core tags that ask for a
// resolution (!!int, !!float, !!bool, !!null) are resolved; quoted and block scalars (tag "!"),
// !!str and any other tag stay strings, as go-yaml v2 leaves them.
json ScalarValue(const YAML::Node& node) {
  const std::string& tag = node.Tag();
  bool resolve = tag == "?";
  if (tag.starts_with(kYamlTag)) {
    std::string_view type = std::string_view(tag).substr(kYamlTag.size());
    resolve = type == "int" || type == "float" || type == "bool" || type == "null";
  }
  return resolve ? ResolvePlainScalar(node.Scalar()) : json(node.Scalar());
}

// The string a key becomes: sigs.k8s.io/yaml turns number and boolean keys into their text.
std::optional<std::string> KeyText(const YAML::Node& key) {
  if (!key.IsScalar()) return std::nullopt;
  json value = ScalarValue(key);
  if (value.is_string()) return value.get<std::string>();
  if (value.is_boolean() || value.is_number_integer()) return value.dump();
  if (value.is_number_float() && std::isfinite(value.get<double>())) return value.dump();
  return std::nullopt;
}

bool IsMergeKey(const YAML::Node& key) {
  return key.IsScalar() && key.Tag() == "?" && key.Scalar() == "<<";
}

// One document's conversion: recursive (yaml-cpp already refused nesting past its depth guard),
// counting values so that aliases cannot blow a small file up into gigabytes.
class Converter {
 public:
  bool Convert(const YAML::Node& node, json& out) {
    if (++values_ > kMaxJsonValues) {
      return Fail(node, "the document expands to more than " + std::to_string(kMaxJsonValues) +
                            " values (through aliases?)");
    }
    switch (node.Type()) {
      case YAML::NodeType::Scalar:
        out = ScalarValue(node);
        if (out.is_number_float() && !std::isfinite(out.get<double>())) {
          return Fail(node, "\"" + node.Scalar() + "\" is not a number JSON can hold");
        }
        return true;
      case YAML::NodeType::Sequence:
        return Sequence(node, out);
      case YAML::NodeType::Map:
        return Map(node, out);
      default:
        out = nullptr;
        return true;
    }
  }

  const LineError& error() const { return error_; }

 private:
  bool Fail(const YAML::Node& node, std::string message) {
    error_ = {LineOf(node), std::move(message)};
    return false;
  }

  bool Sequence(const YAML::Node& node, json& out) {
    out = json::array();
    for (const YAML::Node& item : node) {
      if (!Convert(item, out.emplace_back())) return false;
    }
    return true;
  }

  bool Map(const YAML::Node& node, json& out) {
    out = json::object();
    std::vector<YAML::Node> merges;
    for (auto it = node.begin(); it != node.end(); ++it) {
      if (IsMergeKey(it->first)) {
        merges.push_back(it->second);
        continue;
      }
      auto key = KeyText(it->first);
      if (!key) return Fail(it->first, "a map key must be a string, a number or a boolean");
      if (!Convert(it->second, out[*key])) return false;
    }
    for (const YAML::Node& merge : merges) {
      if (!Merge(merge, out)) return false;
    }
    return true;
  }

  // `<<: *base` or `<<: [*a, *b]`: keys not already set, the first map listed winning.
  bool Merge(const YAML::Node& value, json& out) {
    if (value.IsSequence()) {
      for (const YAML::Node& item : value) {
        if (!item.IsMap()) return Fail(item, "<< merges only maps");
        if (!Merge(item, out)) return false;
      }
      return true;
    }
    json merged;
    if (!value.IsMap()) return Fail(value, "<< merges only maps");
    if (!Convert(value, merged)) return false;
    for (auto& [key, item] : merged.items()) {
      if (!out.contains(key)) out[key] = std::move(item);
    }
    return true;
  }

  size_t values_ = 0;
  LineError error_;
};

}  // namespace

json ResolvePlainScalar(std::string_view text) {
  if (auto value = ResolveSpelling(text)) return *value;
  const char first = text[0];
  if (first == '.') {
    if (auto d = ParseDecimalFloat(text)) return FloatValue(*d);
    return std::string(text);
  }
  if (first == '+' || first == '-' || (first >= '0' && first <= '9')) return ResolveNumber(text);
  return std::string(text);
}

std::expected<json, LineError> YamlToJson(const YAML::Node& node) {
  Converter converter;
  json out;
  try {
    if (!converter.Convert(node, out)) return std::unexpected(converter.error());
  } catch (const YAML::Exception& e) {  // not expected from a parsed tree; kept at the boundary
    return std::unexpected(LineError{e.mark.line >= 0 ? e.mark.line + 1 : 0, e.msg});
  }
  return out;
}

int LineOf(const YAML::Node& node) {
  const YAML::Mark mark = node.Mark();
  return mark.line >= 0 ? mark.line + 1 : 0;
}

}  // namespace gpugate::manifest
