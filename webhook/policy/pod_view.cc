#include "policy/pod_view.h"

#include <algorithm>
#include <utility>

#include "common/vector_pool.h"

namespace gpugate::policy {
namespace {

const QuantityText* FindEntry(const std::vector<ResourceEntry>& list, std::string_view name) {
  auto it = std::lower_bound(list.begin(), list.end(), name,
                             [](const ResourceEntry& e, std::string_view n) { return e.name < n; });
  return it != list.end() && it->name == name ? &it->value : nullptr;
}

}  // namespace

std::string_view ContainerListField(ContainerKind kind) {
  switch (kind) {
    case ContainerKind::kInit:
      return "initContainers";
    case ContainerKind::kRegular:
      return "containers";
    case ContainerKind::kEphemeral:
      return "ephemeralContainers";
  }
  return "containers";
}

const QuantityText* ContainerView::Limit(std::string_view resource) const {
  return FindEntry(limits, resource);
}

const QuantityText* ContainerView::Request(std::string_view resource) const {
  return FindEntry(requests, resource);
}

std::optional<std::string_view> PodSpecView::Annotation(std::string_view key) const {
  auto it = std::lower_bound(annotations.begin(), annotations.end(), key,
                             [](const auto& kv, std::string_view k) { return kv.first < k; });
  if (it == annotations.end() || it->first != key) return std::nullopt;
  return it->second;
}

std::string PodSpecView::ContainerLabel(const ContainerView& c) const {
  std::string out = path;
  out += '.';
  out += ContainerListField(c.kind);
  out += '[';
  out += std::to_string(c.index);
  out += "] \"";
  out += c.name;
  out += '"';
  return out;
}

void RecycleViews(ObjectView& view) {
  for (PodSpecView& spec : view.podSpecs) {
    for (ContainerView& c : spec.containers) {
      VectorPool<ResourceEntry>::Give(std::move(c.limits));
      VectorPool<ResourceEntry>::Give(std::move(c.requests));
      VectorPool<EnvVarView>::Give(std::move(c.env));
    }
    VectorPool<ContainerView>::Give(std::move(spec.containers));
    VectorPool<ResourceEntry>::Give(std::move(spec.overhead));
    VectorPool<TolerationView>::Give(std::move(spec.tolerations));
    VectorPool<StringPair>::Give(std::move(spec.nodeSelector));
    VectorPool<StringPair>::Give(std::move(spec.annotations));
  }
  VectorPool<PodSpecView>::Give(std::move(view.podSpecs));
  view.shapeErrors.clear();
}

}  // namespace gpugate::policy
