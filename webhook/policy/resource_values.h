// How the resource rules walk a container's managed resources and read their quantities, so
// that every rule reports in the same order and agrees on which values are valid.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "policy/pod_view.h"
#include "policy/settings.h"
#include "quantity/quantity.h"

namespace gpugate::policy {

// One managed resource value of one container. Pointers refer into the container and the
// settings passed to ManagedValues and live as long as they do.
struct ResourceValue {
  std::string_view resource;  // e.g. "nvidia.com/gpu"
  std::string_view field;     // "limit" or "request"
  const QuantityText* text;
  const ManagedResource* managed;
};

// The managed values of `c` in reporting order: by resource name, each limit before its request.
// Resources that Settings::Find does not know are left out.
std::vector<ResourceValue> ManagedValues(const ContainerView& c, const Settings& settings);
// The same, appended to `out`.
void AppendManagedValues(const ContainerView& c, const Settings& settings,
                         std::vector<ResourceValue>& out);

// Parses a quantity as Kubernetes does: surrounding whitespace is trimmed first. A wrong JSON
// type is an error.
Result<Quantity> ParseResourceQuantity(const QuantityText& text);

// Whether two quantities as written are the same: by value when both parse ("0.5" and "500m"),
// else as written (a wrong JSON type only equals the same wrong type).
bool SameQuantity(const QuantityText& a, const QuantityText& b);

// The value when whole-units accepts it (a non-negative whole number), else nullopt; rules
// after whole-units skip values it already reports.
std::optional<Quantity> ValidWholeQuantity(const QuantityText& text);

// "GPUs" for resources that count whole devices (names ending in "/gpu", "nvidia.com/mig-*",
// "volcano.sh/gpu-number"), else "units".
std::string_view UnitNoun(std::string_view resource);

// `spec.containers[1] "trainer": nvidia.com/gpu limit`: the subject of a resource finding.
std::string DescribeField(const PodSpecView& pod, const ContainerView& c, const ResourceValue& v);

// `spec.containers[1] "trainer": nvidia.com/gpu limit "0.5"`: the start of most resource messages.
std::string DescribeValue(const PodSpecView& pod, const ContainerView& c, const ResourceValue& v);

}  // namespace gpugate::policy
