#include "policy/managed_pod.h"

#include <algorithm>
#include <utility>

#include "common/result.h"
#include "common/vector_pool.h"
#include "quantity/quantity.h"

namespace gpugate::policy {

ManagedPod::ManagedPod(const PodSpecView& spec, const Settings& settings)
    : spec_(spec),
      settings_(settings),
      values_(VectorPool<ResourceValue>::Take()),
      ends_(VectorPool<size_t>::Take()),
      requested_(VectorPool<std::string_view>::Take()) {
  size_t entries = 0;  // an upper bound on the values: one allocation for each vector
  for (const ContainerView& c : spec.containers) entries += c.limits.size() + c.requests.size();
  values_.reserve(entries);
  ends_.reserve(spec.containers.size());
  for (const ContainerView& c : spec.containers) {
    AppendManagedValues(c, settings, values_);
    ends_.push_back(values_.size());
  }
  requested_.reserve(values_.size());
  for (const ResourceValue& v : values_) {
    Result<Quantity> q = ParseResourceQuantity(*v.text);
    if (q && !q->IsNegative() && !q->IsZero()) requested_.push_back(v.resource);
  }
  std::sort(requested_.begin(), requested_.end());
  requested_.erase(std::unique(requested_.begin(), requested_.end()), requested_.end());
}

ManagedPod::~ManagedPod() {
  VectorPool<ResourceValue>::Give(std::move(values_));
  VectorPool<size_t>::Give(std::move(ends_));
  VectorPool<std::string_view>::Give(std::move(requested_));
}

std::span<const ResourceValue> ManagedPod::Values(const ContainerView& c) const {
  const size_t i = static_cast<size_t>(&c - spec_.containers.data());
  const size_t begin = i == 0 ? 0 : ends_[i - 1];
  return std::span<const ResourceValue>(values_).subspan(begin, ends_[i] - begin);
}

}  // namespace gpugate::policy
