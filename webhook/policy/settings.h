// Policy settings: which resources gpugate manages and how it validates and mutates pods that
// request them. Built from the config file (config/config.h) or the built-in defaults; read-only
// once the server starts, so rules may share one instance across threads without locking.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "policy/modes.h"
#include "policy/pod_view.h"

namespace gpugate::policy {

struct ManagedResource {
  std::string name;  // exact resource name, or a glob ('*' = any run) when isPattern
  bool isPattern = false;
  std::string schedulerName;  // scheduler that must place pods requesting it ("" = any)
  std::optional<int64_t> maxPerContainer;  // e.g. 1 under NVIDIA time-slicing
  bool toleration = true;                  // add the ExtendedResourceToleration for it on mutate
};

// A toleration from the configuration, owning its strings (a TolerationView borrows).
struct Toleration {
  std::string key;
  std::string op;
  std::string value;
  std::string effect;

  TolerationView View() const { return {.key = key, .op = op, .value = value, .effect = effect}; }
};

enum class CoreLimitMode {
  kRequest,  // the smallest tencent.com/vcuda-core share among the pod's containers
  kFixed,    // CoreLimit::value
  kOff,      // never set the annotation
};

struct CoreLimit {
  CoreLimitMode mode = CoreLimitMode::kRequest;
  int value = 0;  // 1-100 when mode == kFixed
};

struct Settings {
  std::vector<ManagedResource> resources = DefaultResources();
  std::vector<std::string> exemptNamespaces = {"kube-system"};
  std::string schedulerName;            // mutation.schedulerName: for every GPU pod when set
  std::vector<Toleration> tolerations;  // mutation.tolerations: added to every GPU pod
  CoreLimit coreLimit;                  // mutation.coreLimit
  bool denyVisibleDevicesEnv = true;    // security.denyVisibleDevicesEnv
  bool denyPrivilegedGPU = true;        // security.denyPrivilegedGPU
  ModeSettings modes;                   // modes.*: deny, warn or audit per rule and namespace

  // The managed resource `name` belongs to: exact names first, then patterns in listed order.
  const ManagedResource* Find(std::string_view name) const;
  bool IsExempt(std::string_view ns) const;

  static std::vector<ManagedResource> DefaultResources();
};

// Resource names with special meaning to the rules.
inline constexpr std::string_view kVcudaCore = "tencent.com/vcuda-core";
inline constexpr std::string_view kVcudaCoreLimitAnnotation = "tencent.com/vcuda-core-limit";
inline constexpr std::string_view kNvidiaVisibleDevices = "NVIDIA_VISIBLE_DEVICES";

}  // namespace gpugate::policy
