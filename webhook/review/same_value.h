// Whether an UPDATE's old and new object hold the same pod specs, by value: what the handler asks
// before judging an update (admission/handler.h, Handler::Unchanged). Written once over a JSON
// view (json_view.h), like the walk that found the specs.
//
// By value, not by bytes: objects are maps (member order aside; the last of repeated keys
// counts, as in the views), arrays compare item by item, numbers as parsed, and a resource
// quantity (a member of `limits`, `requests` or `overhead`) by the quantity it denotes, so "0.5"
// and "500m", or 1 and "1", are the same.
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "policy/pod_view.h"
#include "policy/resource_values.h"
#include "review/json_view.h"

namespace gpugate::review {
namespace same_value_detail {

inline bool IsQuantityMap(std::string_view key) {
  return key == "limits" || key == "requests" || key == "overhead";
}

// RFC 6901 reference token: "~1" -> "/", "~0" -> "~".
inline std::string Unescape(std::string_view token) {
  std::string out;
  for (size_t i = 0; i < token.size(); ++i) {
    if (token[i] == '~' && i + 1 < token.size()) {
      out += token[i + 1] == '1' ? '/' : '~';
      ++i;
    } else {
      out += token[i];
    }
  }
  return out;
}

template <typename View>
std::string ScalarText(const View& json, typename View::Value v) {
  if (json.Type(v) == JsonType::kString) return std::string(json.String(v));
  return json.NumberText(v, [] { return std::string(); });
}

// A JSON value as the quantity text the pod-spec walk would read from it: a string's view of the
// document, or a number's text printed into `keep`.
template <typename View>
policy::QuantityText QuantityOf(const View& json, typename View::Value v, std::string& keep) {
  const JsonType t = json.Type(v);
  if (t == JsonType::kString) return {json.String(v)};
  if (t != JsonType::kNumber) return {JsonTypeName(t), true};
  keep = ScalarText(json, v);
  return {keep};
}

// A quantity map's member: by the quantity each denotes.
template <typename View>
bool SameQuantityValue(const View& json, typename View::Value a, typename View::Value b) {
  std::string ta, tb;
  return policy::SameQuantity(QuantityOf(json, a, ta), QuantityOf(json, b, tb));
}

// Two values that are not both objects nor both arrays.
template <typename View>
bool SameScalar(const View& json, typename View::Value a, typename View::Value b) {
  const JsonType type = json.Type(a);
  if (type != json.Type(b)) return false;
  switch (type) {
    case JsonType::kNull:
      return true;
    case JsonType::kBoolean:
      return json.Bool(a) == json.Bool(b);
    case JsonType::kString:
      return json.String(a) == json.String(b);
    case JsonType::kNumber:
      return ScalarText(json, a) == ScalarText(json, b);
    case JsonType::kArray:
    case JsonType::kObject:
    case JsonType::kInvalid:
      return false;
  }
  return false;
}

// The usual UPDATE, where one API server wrote both objects alike: true when they hold the same
// members in the same written order, each the same as below, which implies SameValue. Stops at
// the first difference; false says nothing (the members may be in another order). One pass
// over both, no sorting and no allocation.
template <typename View>
bool SameAsWritten(const View& json, typename View::Value a, typename View::Value b,
                   bool quantityMap) {
  using Value = typename View::Value;
  const JsonType type = json.Type(a);
  if (type == JsonType::kObject && json.Type(b) == type) {
    return json.ZipMembers(a, b, [&](std::string_view key, Value x, Value y) {
      return quantityMap ? SameQuantityValue(json, x, y)
                         : SameAsWritten(json, x, y, IsQuantityMap(key));
    });
  }
  if (type == JsonType::kArray && json.Type(b) == type) {
    return json.ZipItems(a, b, [&](Value x, Value y) { return SameAsWritten(json, x, y, false); });
  }
  return SameScalar(json, a, b);
}

// SameValue's answer whatever the members' order: both objects' members in key order, a
// repeated key once (its last value), as the views read them. Recurses into itself, not into
// SameAsWritten, so that objects that differ cost at most one written-order pass more.
template <typename View>
bool SameValueByKey(const View& json, typename View::Value a, typename View::Value b,
                    bool quantityMap) {
  using Value = typename View::Value;
  const JsonType type = json.Type(a);
  if (type == JsonType::kArray && json.Type(b) == type) {
    return json.ZipItems(a, b, [&](Value x, Value y) { return SameValueByKey(json, x, y, false); });
  }
  if (type != JsonType::kObject || json.Type(b) != type) return SameScalar(json, a, b);
  std::vector<std::pair<std::string_view, Value>> members;
  json.ForEachMember(a, [&](std::string_view k, Value v) { members.emplace_back(k, v); });
  size_t n = 0;
  bool same = true;
  // ForEachMember visits both in key order, each key once.
  json.ForEachMember(b, [&](std::string_view k, Value v) {
    same = same && n < members.size() && members[n].first == k &&
           (quantityMap ? SameQuantityValue(json, members[n].second, v)
                        : SameValueByKey(json, members[n].second, v, IsQuantityMap(k)));
    ++n;
  });
  return same && n == members.size();
}

}  // namespace same_value_detail

// `a` and `b` as the same JSON value (see above); `quantityMap`: they are the value of a
// `limits`, `requests` or `overhead` member, whose own members compare as quantities. `json`
// must have no raw-text finder (numbers compare by their parsed value).
template <typename View>
bool SameValue(const View& json, typename View::Value a, typename View::Value b,
               bool quantityMap = false) {
  using namespace same_value_detail;
  return SameAsWritten(json, a, b, quantityMap) || SameValueByKey(json, a, b, quantityMap);
}

// The value at RFC 6901 `pointer` under `root`, or nullopt.
template <typename View>
std::optional<typename View::Value> AtPointer(const View& json, typename View::Value root,
                                              std::string_view pointer) {
  using Value = typename View::Value;
  std::optional<Value> at = root;
  while (at && !pointer.empty()) {
    pointer.remove_prefix(1);  // the '/'
    const size_t end = std::min(pointer.find('/'), pointer.size());
    const std::string token = same_value_detail::Unescape(pointer.substr(0, end));
    pointer.remove_prefix(end);
    if (json.Type(*at) == JsonType::kObject) {
      at = json.Find(*at, token);
    } else if (json.Type(*at) == JsonType::kArray) {
      std::optional<Value> item;
      json.ForEachItem(*at, [&](size_t i, Value v) {
        if (std::to_string(i) == token) item = v;
      });
      at = item;
    } else {
      at = std::nullopt;
    }
  }
  return at;
}

// Whether every pod spec found in the new object (`specs`, from `after`) is at the same place in
// `before` with the same value, and `before` has as many.
template <typename View>
bool SamePodSpecs(const View& json, typename View::Value before, typename View::Value after,
                  const policy::ObjectView& specs, const policy::ObjectView& beforeSpecs) {
  if (specs.podSpecs.size() != beforeSpecs.podSpecs.size()) return false;
  for (const policy::PodSpecView& spec : specs.podSpecs) {
    auto a = AtPointer(json, before, spec.pointer);
    auto b = AtPointer(json, after, spec.pointer);
    if (!a || !b || !SameValue(json, *a, *b)) return false;
  }
  return true;
}

}  // namespace gpugate::review
