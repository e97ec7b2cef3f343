// A pod spec with its managed resources found once, for every rule and the mutation planner:
// each container's limits and requests that Settings::Find knows, and the names requested with a
// valid positive quantity. Finding them per rule asked Settings::Find about every resource name
// of every container once per rule (about a hundred lookups for a small GPU pod); this asks once.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

#include "policy/pod_view.h"
#include "policy/resource_values.h"
#include "policy/settings.h"

namespace gpugate::policy {

// Borrows `spec` and `settings`, which must outlive it; immutable once built, so rules on any
// thread may read it.
class ManagedPod {
 public:
  ManagedPod(const PodSpecView& spec, const Settings& settings);
  // Its lists' memory goes to the thread's VectorPools, for the next pod's.
  ~ManagedPod();
  ManagedPod(const ManagedPod&) = delete;
  ManagedPod& operator=(const ManagedPod&) = delete;

  const PodSpecView& spec() const { return spec_; }
  const Settings& settings() const { return settings_; }

  // The managed values of `c`, which must be one of spec().containers, in reporting order: by
  // resource name, each limit before its request (as ManagedValues).
  std::span<const ResourceValue> Values(const ContainerView& c) const;
  // Managed resource names with a valid, positive quantity in any container's limits or requests
  // (init and ephemeral included), sorted and unique. Invalid quantities are left to the rules.
  std::span<const std::string_view> Requested() const { return requested_; }
  // A GPU pod requests some managed resource.
  bool IsGpuPod() const { return !requested_.empty(); }

 private:
  const PodSpecView& spec_;
  const Settings& settings_;
  std::vector<ResourceValue> values_;  // every container's, in container order
  std::vector<size_t> ends_;           // container i's values end at ends_[i]
  std::vector<std::string_view> requested_;
};

}  // namespace gpugate::policy
