#include "policy/settings.h"

#include <algorithm>

#include "common/strings.h"

namespace gpugate::policy {

std::vector<ManagedResource> Settings::DefaultResources() {
  auto exact = [](std::string name, std::string scheduler = "") {
    return ManagedResource{.name = std::move(name), .schedulerName = std::move(scheduler)};
  };
  auto pattern = [](std::string name, std::string scheduler = "") {
    return ManagedResource{
        .name = std::move(name), .isPattern = true, .schedulerName = std::move(scheduler)};
  };
  return {
      exact("nvidia.com/gpu"),
      exact("amd.com/gpu"),
      pattern("nvidia.com/mig-*"),
      exact("tencent.com/vcuda-core"),
      exact("tencent.com/vcuda-memory"),
      exact("aliyun.com/gpu-mem"),
      exact("volcano.sh/gpu-memory", "volcano"),
      exact("volcano.sh/gpu-number", "volcano"),
      pattern("volcano.sh/vgpu-*", "volcano"),
      exact("nvidia.com/gpumem"),
      exact("nvidia.com/gpucores"),
      exact("nvidia.com/gpumem-percentage"),
  };
}

namespace {

// A cheap test before GlobMatch: a pattern that starts with a literal character matches only names
// that start with it (most names asked about, cpu and memory, fail here).
bool MayMatch(std::string_view pattern, std::string_view name) {
  return pattern.empty() || pattern.front() == '*' || name.starts_with(pattern.front());
}

}  // namespace

const ManagedResource* Settings::Find(std::string_view name) const {
  // One pass (the rules ask for every resource name of every container, most of them not
  // managed): an exact name wins wherever it is listed, else the first pattern that matches.
  const ManagedResource* pattern = nullptr;
  for (const auto& r : resources) {
    if (!r.isPattern) {
      if (r.name == name) return &r;
    } else if (!pattern && MayMatch(r.name, name) && GlobMatch(r.name, name)) {
      pattern = &r;
    }
  }
  return pattern;
}

bool Settings::IsExempt(std::string_view ns) const {
  return std::find(exemptNamespaces.begin(), exemptNamespaces.end(), ns) != exemptNamespaces.end();
}

}  // namespace gpugate::policy
