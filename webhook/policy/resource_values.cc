#include "policy/resource_values.h"

#include <optional>

#include "common/strings.h"

namespace gpugate::policy {

std::vector<ResourceValue> ManagedValues(const ContainerView& c, const Settings& settings) {
  std::vector<ResourceValue> out;
  AppendManagedValues(c, settings, out);
  return out;
}

void AppendManagedValues(const ContainerView& c, const Settings& settings,
                         std::vector<ResourceValue>& out) {
  // A name in both lists comes twice in a row (limit, then request): looked up once.
  std::optional<std::string_view> lastName;
  const ManagedResource* lastManaged = nullptr;
  auto add = [&](const ResourceEntry& e, std::string_view field) {
    if (e.name != lastName) {
      lastName = e.name;
      lastManaged = settings.Find(e.name);
    }
    if (lastManaged) out.push_back({e.name, field, &e.value, lastManaged});
  };
  // Both lists are sorted by name: merge them, a limit first when the names tie.
  size_t i = 0, j = 0;
  while (i < c.limits.size() || j < c.requests.size()) {
    bool takeLimit =
        j == c.requests.size() || (i < c.limits.size() && c.limits[i].name <= c.requests[j].name);
    if (takeLimit) {
      add(c.limits[i++], "limit");
    } else {
      add(c.requests[j++], "request");
    }
  }
}

Result<Quantity> ParseResourceQuantity(const QuantityText& text) {
  if (text.wrongType) return Fail("must be a quantity string, got " + std::string(text.text));
  // Surrounding white space (' ', '\t' to '\r') is trimmed; usually there is none.
  const auto space = [](char c) { return c == ' ' || (c >= '\t' && c <= '\r'); };
  std::string_view s = text.text;
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return ParseQuantity(s);
}

std::optional<Quantity> ValidWholeQuantity(const QuantityText& text) {
  Result<Quantity> q = ParseResourceQuantity(text);
  if (!q || q->IsNegative() || !q->IsWhole()) return std::nullopt;
  return *q;
}

std::string_view UnitNoun(std::string_view resource) {
  bool gpus = resource.ends_with("/gpu") || resource.starts_with("nvidia.com/mig-") ||
              resource == "volcano.sh/gpu-number";
  return gpus ? "GPUs" : "units";
}

bool SameQuantity(const QuantityText& a, const QuantityText& b) {
  // The same text is the same quantity, or the same unparsable text: an UPDATE's usual case,
  // answered without parsing.
  if (a.wrongType == b.wrongType && a.text == b.text) return true;
  if (a.wrongType || b.wrongType) return false;
  Result<Quantity> qa = ParseResourceQuantity(a);
  Result<Quantity> qb = ParseResourceQuantity(b);
  if (qa && qb) return *qa == *qb;
  return !qa && !qb && a.text == b.text;
}

std::string DescribeField(const PodSpecView& pod, const ContainerView& c, const ResourceValue& v) {
  std::string out = pod.ContainerLabel(c);
  out += ": ";
  out += v.resource;
  out += ' ';
  out += v.field;
  return out;
}

std::string DescribeValue(const PodSpecView& pod, const ContainerView& c, const ResourceValue& v) {
  std::string out = DescribeField(pod, c, v);
  out += ' ';
  AppendJsonString(out, v.text->text);
  return out;
}

}  // namespace gpugate::policy
