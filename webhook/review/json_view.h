// Two read-only views of a parsed JSON document behind one interface, so the pod-spec walk
// (pod_spec_walker.h) and the AdmissionReview decode are written once and run over either parser:
// SimdjsonView (simdjson's DOM: the request path) and NlohmannView (nlohmann-json: pods from the
// cluster watch, and DecodeReview's fallback for integers beyond 64 bits).
//
// A view is a small const object; its Value is a cheap handle, valid while the document lives.
// Both views answer alike for the same text:
//   Type(v)                 the JSON type
//   Find(obj, key)          a member or nullopt; a repeated key yields its last value (nlohmann
//                           keeps only the last; simdjson's DOM keeps all, and the view picks it)
//   FindAll<keys>(obj)      Find for several keys, in one pass over a DOM object; `keys` is a
//                           constexpr std::array of string_views (KeyIndex)
//   ForEachMember(obj, f)   f(key, value) in byte order of the keys, a repeated key once (last)
//   ForEachItem(arr, f)     f(index, value) in order
//   ZipMembers(a, b, f)     two objects' members paired in written order, repeated keys
//                           included: f(key, a's value, b's value) while the keys agree and f
//                           returns true; true when both ran out together (nlohmann's written
//                           order is key order)
//   ZipItems(a, b, f)       two arrays' items paired in order while f(a's, b's) returns true;
//                           true when both ran out together
//   Size(v)                 an object's members or an array's items (a repeated key each time
//                           on simdjson); 0 for anything else. For reserving, not for logic
//   String(v), Bool(v)      the scalar; v must have that type
//   NumberText(v, pointer)  the number's literal text; `pointer()` returns its RFC 6901 pointer
//                           and is called only for numbers whose text the parser dropped
// Internal to the review layer: only its .cc files include this (simdjson stays out of the
// headers other layers see).
#pragma once

#include <simdjson.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "review/raw_json.h"

namespace gpugate::review {

namespace view_detail {
template <const auto& Keys, size_t... I>
constexpr size_t KeyIndex(std::string_view key, std::index_sequence<I...>) {
  size_t found = sizeof...(I);
  (void)((key.size() == Keys[I].size() &&
                  std::memcmp(key.data(), Keys[I].data(), Keys[I].size()) == 0
              ? (found = I, true)
              : false) ||
         ...);
  return found;
}
}  // namespace view_detail

// Which of `Keys` (a constexpr std::array of distinct string_views) `key` is, or Keys.size().
// Each length and text is a constant, so the compiler reduces the lookup to a switch on the
// length and one or two integer compares: no memcmp call per member of an object read.
template <const auto& Keys>
constexpr size_t KeyIndex(std::string_view key) {
  return view_detail::KeyIndex<Keys>(key, std::make_index_sequence<std::size(Keys)>());
}

enum class JsonType { kNull, kBoolean, kNumber, kString, kArray, kObject, kInvalid };

// "null", "boolean", "number", "string", "array", "object" (as messages name them).
constexpr std::string_view JsonTypeName(JsonType type) {
  switch (type) {
    case JsonType::kNull:
      return "null";
    case JsonType::kBoolean:
      return "boolean";
    case JsonType::kNumber:
      return "number";
    case JsonType::kString:
      return "string";
    case JsonType::kArray:
      return "array";
    case JsonType::kObject:
      return "object";
    case JsonType::kInvalid:
      break;
  }
  return "invalid";
}

class NlohmannView {
 public:
  using Value = const nlohmann::json*;

  // `raw` (optional, must outlive the view) recovers the literal text of non-integer numbers;
  // without it they print as nlohmann prints a double.
  explicit NlohmannView(const RawJsonFinder* raw = nullptr) : raw_(raw) {}

  static JsonType Type(Value v) {
    using T = nlohmann::json::value_t;
    switch (v->type()) {
      case T::null:
        return JsonType::kNull;
      case T::boolean:
        return JsonType::kBoolean;
      case T::number_integer:
      case T::number_unsigned:
      case T::number_float:
        return JsonType::kNumber;
      case T::string:
        return JsonType::kString;
      case T::array:
        return JsonType::kArray;
      case T::object:
        return JsonType::kObject;
      default:
        return JsonType::kInvalid;
    }
  }

  static std::optional<Value> Find(Value object, std::string_view key) {
    const auto& members = object->get_ref<const nlohmann::json::object_t&>();
    auto it = members.find(std::string(key));
    return it == members.end() ? std::nullopt : std::optional<Value>(&it->second);
  }

  template <const auto& Keys>
  static std::array<std::optional<Value>, std::size(Keys)> FindAll(Value object) {
    std::array<std::optional<Value>, std::size(Keys)> found;
    for (size_t i = 0; i < found.size(); ++i) found[i] = Find(object, Keys[i]);
    return found;
  }

  // nlohmann's object is a std::map: already in key order, keys unique.
  template <typename F>
  static void ForEachMember(Value object, F&& f) {
    for (const auto& [key, value] : object->get_ref<const nlohmann::json::object_t&>()) {
      f(std::string_view(key), &value);
    }
  }

  template <typename F>
  static void ForEachItem(Value array, F&& f) {
    const auto& items = array->get_ref<const nlohmann::json::array_t&>();
    for (size_t i = 0; i < items.size(); ++i) f(i, &items[i]);
  }

  template <typename F>
  static bool ZipMembers(Value a, Value b, F&& f) {
    const auto& x = a->get_ref<const nlohmann::json::object_t&>();
    const auto& y = b->get_ref<const nlohmann::json::object_t&>();
    if (x.size() != y.size()) return false;
    for (auto i = x.begin(), j = y.begin(); i != x.end(); ++i, ++j) {
      if (i->first != j->first || !f(std::string_view(i->first), &i->second, &j->second)) {
        return false;
      }
    }
    return true;
  }

  template <typename F>
  static bool ZipItems(Value a, Value b, F&& f) {
    const auto& x = a->get_ref<const nlohmann::json::array_t&>();
    const auto& y = b->get_ref<const nlohmann::json::array_t&>();
    if (x.size() != y.size()) return false;
    for (size_t i = 0; i < x.size(); ++i) {
      if (!f(&x[i], &y[i])) return false;
    }
    return true;
  }

  static size_t Size(Value v) { return v->is_object() || v->is_array() ? v->size() : 0; }

  static std::string_view String(Value v) { return v->get_ref<const std::string&>(); }
  static bool Bool(Value v) { return v->get<bool>(); }

  // Integers print exactly as written (JSON allows one spelling of each, "-0" aside); integers
  // beyond 64 bits and decimals are doubles here, so their text comes from `raw_`.
  template <typename MakePointer>
  std::string NumberText(Value v, MakePointer&& pointer) const {
    if (v->is_number_float() && raw_) {
      if (auto text = raw_->At(pointer())) return *text;
    }
    return v->dump();
  }

 private:
  const RawJsonFinder* raw_;
};

class SimdjsonView {
 public:
  using Value = simdjson::dom::element;

  // `raw` (optional, must outlive the view) recovers the literal text of non-integer numbers;
  // without it they print as simdjson prints a double (the same text as nlohmann).
  explicit SimdjsonView(const RawJsonFinder* raw = nullptr) : raw_(raw) {}

  static JsonType Type(Value v) {
    using T = simdjson::dom::element_type;
    switch (v.type()) {
      case T::NULL_VALUE:
        return JsonType::kNull;
      case T::BOOL:
        return JsonType::kBoolean;
      case T::INT64:
      case T::UINT64:
      case T::DOUBLE:
        return JsonType::kNumber;
      case T::STRING:
        return JsonType::kString;
      case T::ARRAY:
        return JsonType::kArray;
      case T::OBJECT:
        return JsonType::kObject;
    }
    return JsonType::kInvalid;
  }

  // A linear scan to the end (a DOM object is a list, like simdjson's at_key): the last of
  // repeated keys wins.
  static std::optional<Value> Find(Value object, std::string_view key) {
    std::optional<Value> found;
    simdjson::dom::object members;
    if (object.get_object().get(members) != simdjson::SUCCESS) return found;
    for (const auto& member : members) {
      if (member.key == key) found = member.value;
    }
    return found;
  }

  // One scan for all `Keys`, as Find.
  template <const auto& Keys>
  static std::array<std::optional<Value>, std::size(Keys)> FindAll(Value object) {
    std::array<std::optional<Value>, std::size(Keys)> found;
    simdjson::dom::object members;
    if (object.get_object().get(members) != simdjson::SUCCESS) return found;
    for (const auto& member : members) {
      if (const size_t i = KeyIndex<Keys>(member.key); i < found.size()) found[i] = member.value;
    }
    return found;
  }

  // Objects in the apiserver's output are mostly in struct-field order, maps (annotations,
  // resource lists) in key order. A small object (a container's resources, a pod's few
  // annotations) is read once, into a stack array kept sorted by insertion: stable, no
  // allocation, and one key compare per member when the keys come in order. A larger one is
  // checked for order first and sorted only when it is out of order.
  template <typename F>
  static void ForEachMember(Value object, F&& f) {
    simdjson::dom::object members;
    if (object.get_object().get(members) != simdjson::SUCCESS) return;
    using Member = std::pair<std::string_view, Value>;
    std::array<Member, kSortOnStack> small;
    std::vector<Member> large;
    Member* sorted = small.data();
    size_t n = 0;
    bool repeated = false;  // a key came twice: the last one wins
    if (members.size() <= kSortOnStack) {
      for (const auto& member : members) {
        size_t at = n++;
        for (; at > 0; --at) {
          const int order = member.key.compare(sorted[at - 1].first);
          if (order >= 0) {
            repeated = repeated || order == 0;
            break;
          }
          sorted[at] = sorted[at - 1];
        }
        sorted[at] = {member.key, member.value};
      }
    } else if (KeysAscending(members)) {
      for (const auto& member : members) f(member.key, member.value);
      return;
    } else {
      large.reserve(members.size());
      for (const auto& member : members) large.emplace_back(member.key, member.value);
      const auto byKey = [](const Member& a, const Member& b) { return a.first < b.first; };
      std::stable_sort(large.begin(), large.end(), byKey);
      sorted = large.data();
      n = large.size();
      repeated = true;  // not known: checked below
    }
    for (size_t i = 0; i < n; ++i) {
      if (repeated && i + 1 < n && sorted[i + 1].first == sorted[i].first) continue;
      f(sorted[i].first, sorted[i].second);
    }
  }

  template <typename F>
  static void ForEachItem(Value array, F&& f) {
    simdjson::dom::array items;
    if (array.get_array().get(items) != simdjson::SUCCESS) return;
    size_t i = 0;
    for (Value item : items) f(i++, item);
  }

  template <typename F>
  static bool ZipMembers(Value a, Value b, F&& f) {
    simdjson::dom::object x, y;
    if (a.get_object().get(x) != simdjson::SUCCESS || b.get_object().get(y) != simdjson::SUCCESS) {
      return false;
    }
    auto i = x.begin(), j = y.begin();
    for (; i != x.end() && j != y.end(); ++i, ++j) {
      if (i.key() != j.key() || !f(i.key(), i.value(), j.value())) return false;
    }
    return i == x.end() && j == y.end();
  }

  template <typename F>
  static bool ZipItems(Value a, Value b, F&& f) {
    simdjson::dom::array x, y;
    if (a.get_array().get(x) != simdjson::SUCCESS || b.get_array().get(y) != simdjson::SUCCESS) {
      return false;
    }
    auto i = x.begin(), j = y.begin();
    for (; i != x.end() && j != y.end(); ++i, ++j) {
      if (!f(*i, *j)) return false;
    }
    return i == x.end() && j == y.end();
  }

  static size_t Size(Value v) {
    simdjson::dom::object members;
    if (v.get_object().get(members) == simdjson::SUCCESS) return members.size();
    simdjson::dom::array items;
    return v.get_array().get(items) == simdjson::SUCCESS ? items.size() : 0;
  }

  static std::string_view String(Value v) {
    std::string_view s;
    return v.get_string().get(s) == simdjson::SUCCESS ? s : std::string_view();
  }
  static bool Bool(Value v) {
    bool b = false;
    return v.get_bool().get(b) == simdjson::SUCCESS && b;
  }

  // The DOM keeps 64-bit integers exactly (printed back they are the text as written, "-0"
  // aside); decimals are doubles, so their text comes from `raw_`. Integers beyond 64 bits never
  // get here: simdjson refuses them and DecodeReview falls back to nlohmann.
  template <typename MakePointer>
  std::string NumberText(Value v, MakePointer&& pointer) const {
    char buf[24];
    char* end = buf;
    if (int64_t i; v.type() == simdjson::dom::element_type::INT64 && !v.get_int64().get(i)) {
      end = std::to_chars(buf, buf + sizeof buf, i).ptr;
    } else if (uint64_t u;
               v.type() == simdjson::dom::element_type::UINT64 && !v.get_uint64().get(u)) {
      end = std::to_chars(buf, buf + sizeof buf, u).ptr;
    } else {
      if (raw_) {
        if (auto text = raw_->At(pointer())) return *text;
      }
      return simdjson::minify(v);
    }
    return std::string(buf, end);
  }

 private:
  static constexpr size_t kSortOnStack = 16;

  static bool KeysAscending(simdjson::dom::object members) {
    std::optional<std::string_view> previous;
    for (const auto& member : members) {
      if (previous && !(*previous < member.key)) return false;
      previous = member.key;
    }
    return true;
  }

  const RawJsonFinder* raw_;
};

}  // namespace gpugate::review
