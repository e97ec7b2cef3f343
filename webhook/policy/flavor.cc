#include "policy/flavor.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace gpugate::policy {
namespace {

const std::string* LabelOf(const Flavor& f, std::string_view key) {
  for (const auto& [k, v] : f.nodeLabels) {
    if (k == key) return &v;
  }
  return nullptr;
}

bool DefinesLabel(std::span<const Flavor> flavors, std::string_view key) {
  return std::any_of(flavors.begin(), flavors.end(),
                     [&](const Flavor& f) { return LabelOf(f, key) != nullptr; });
}

std::optional<int64_t> Integer(std::string_view text) {
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// Whether a node of flavor `f` may satisfy `r`: decided by the flavor's label where it defines
// `r.key`; a label it does not define may be on its nodes or not, so it rules nothing out.
bool MayMatch(const Flavor& f, const NodeRequirementView& r) {
  const std::string* value = LabelOf(f, r.key);
  if (!value) return true;
  auto listed = [&] {
    return std::find(r.values.begin(), r.values.end(), *value) != r.values.end();
  };
  if (r.op == "In") return listed();
  if (r.op == "NotIn") return !listed();
  if (r.op == "Exists") return true;
  if (r.op == "DoesNotExist") return false;
  if (r.op == "Gt" || r.op == "Lt") {  // Kubernetes: integer label against one integer value
    std::optional<int64_t> label = Integer(*value);
    std::optional<int64_t> bound = r.values.size() == 1 ? Integer(r.values[0]) : std::nullopt;
    if (!label || !bound) return false;
    return r.op == "Gt" ? *label > *bound : *label < *bound;
  }
  return true;  // an operator the API server would refuse: rule nothing out
}

// A term with neither expressions nor fields matches no node (Kubernetes' rule).
bool MayMatchTerm(const Flavor& f, const NodeSelectorTermView& term) {
  if (term.expressions.empty() && !term.onFields) return false;
  return std::all_of(term.expressions.begin(), term.expressions.end(),
                     [&](const NodeRequirementView& r) { return MayMatch(f, r); });
}

std::string Upper(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

// HAMi's keywords: comma-separated, matched as case-insensitive substrings of a GPU type name.
std::vector<std::string> Keywords(std::string_view annotation) {
  std::vector<std::string> out;
  while (!annotation.empty()) {
    size_t comma = annotation.find(',');
    std::string_view word = annotation.substr(0, comma);
    while (!word.empty() && word.front() == ' ') word.remove_prefix(1);
    while (!word.empty() && word.back() == ' ') word.remove_suffix(1);
    if (!word.empty()) out.push_back(Upper(word));
    if (comma == std::string_view::npos) break;
    annotation.remove_prefix(comma + 1);
  }
  return out;
}

bool MatchesAnyKeyword(const Flavor& f, const std::vector<std::string>& keywords) {
  std::vector<std::string> types;
  if (f.gpuTypes.empty()) {
    for (const auto& [key, value] : f.nodeLabels) types.push_back(Upper(value));
  } else {
    for (const std::string& t : f.gpuTypes) types.push_back(Upper(t));
  }
  for (const std::string& word : keywords) {
    for (const std::string& type : types) {
      if (type.find(word) != std::string::npos) return true;
    }
  }
  return false;
}

}  // namespace

FlavorPin PodFlavors(const PodSpecView& pod, std::span<const Flavor> flavors) {
  FlavorPin pin;
  for (const auto& [key, value] : pod.nodeSelector) pin.pinned |= DefinesLabel(flavors, key);
  for (const NodeSelectorTermView& term : pod.requiredNodeTerms) {
    for (const NodeRequirementView& r : term.expressions) {
      pin.pinned |= DefinesLabel(flavors, r.key);
    }
  }
  std::vector<std::string> use, noUse;
  if (auto a = pod.Annotation(kUseGpuTypeAnnotation)) use = Keywords(*a);
  if (auto a = pod.Annotation(kNoUseGpuTypeAnnotation)) noUse = Keywords(*a);
  pin.pinned |= !use.empty() || !noUse.empty();

  for (const Flavor& f : flavors) {
    bool may = std::all_of(pod.nodeSelector.begin(), pod.nodeSelector.end(), [&](const auto& kv) {
      const std::string* label = LabelOf(f, kv.first);
      return !label || *label == kv.second;
    });
    if (pod.hasRequiredNodeAffinity) {
      may = may && std::any_of(pod.requiredNodeTerms.begin(), pod.requiredNodeTerms.end(),
                               [&](const NodeSelectorTermView& t) { return MayMatchTerm(f, t); });
    }
    if (!use.empty()) may = may && MatchesAnyKeyword(f, use);
    if (!noUse.empty()) may = may && !MatchesAnyKeyword(f, noUse);
    if (may) pin.flavors.push_back(f.name);
  }
  return pin;
}

std::string FlavoredName(std::string_view resource, std::string_view flavor) {
  std::string out(resource);
  out += '@';
  out += flavor;
  return out;
}

std::optional<std::pair<std::string_view, std::string_view>> SplitFlavored(std::string_view name) {
  size_t at = name.rfind('@');
  if (at == std::string_view::npos || at == 0 || at + 1 == name.size()) return std::nullopt;
  return std::make_pair(name.substr(0, at), name.substr(at + 1));
}

}  // namespace gpugate::policy
