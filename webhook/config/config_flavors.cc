// quota.flavors and quota.defaultFlavors: the GPU models quota can be set per (docs/quota.md,
// "Quota per GPU model"), and the flavor the mutating webhook pins unpinned GPU pods to.
//
//   quota:
//     flavors:
//       a100: {nodeLabels: {nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB}}
//       t4:   {nodeLabels: {nvidia.com/gpu.product: Tesla-T4}, gpuTypes: ["Tesla T4"]}
//     defaultFlavors:
//       team-b: t4
#include <algorithm>

#include "common/strings.h"
#include "config/config_sections.h"
#include "config/k8s_names.h"

namespace gpugate::config {
namespace {

Status ReadNodeLabels(const Cursor& value, policy::Flavor& flavor) {
  auto st = VisitEntries(
      value, [&](const std::string& key, const Cursor& keyAt, const Cursor& label) -> Status {
        if (!IsQualifiedName(key)) {
          return keyAt.FailExpected("a node label key such as \"nvidia.com/gpu.product\"");
        }
        std::string text;
        if (auto st = label.ReadString(text); !st) return st;
        if (text.empty() || !IsLabelValue(text)) {
          return label.FailExpected("a node label value such as \"NVIDIA-A100-SXM4-80GB\"");
        }
        flavor.nodeLabels.emplace_back(key, std::move(text));
        return {};
      });
  if (!st) return st;
  if (flavor.nodeLabels.empty()) return value.Fail("must name at least one node label");
  std::sort(flavor.nodeLabels.begin(), flavor.nodeLabels.end());
  return {};
}

Status ReadGpuTypes(const Cursor& value, policy::Flavor& flavor) {
  return VisitList(value, [&](const Cursor& item) -> Status {
    std::string text;
    if (auto st = item.ReadString(text); !st) return st;
    if (text.empty() || text.find(',') != std::string::npos) {
      return item.FailExpected("a GPU type name such as \"NVIDIA A100-SXM4-80GB\", without commas");
    }
    flavor.gpuTypes.push_back(std::move(text));
    return {};
  });
}

constexpr Field<policy::Flavor> kFlavorFields[] = {
    {"nodeLabels", ReadNodeLabels},
    {"gpuTypes", ReadGpuTypes},
};

}  // namespace

Status ReadFlavors(const Cursor& value, std::vector<policy::Flavor>& out) {
  std::vector<policy::Flavor> flavors;
  auto st = VisitEntries(
      value, [&](const std::string& name, const Cursor& keyAt, const Cursor& fields) -> Status {
        if (!IsDnsLabel(name)) return keyAt.FailExpected("a flavor name such as \"a100\"");
        policy::Flavor flavor{.name = name};
        if (auto st = ReadFields(fields, kFlavorFields, flavor); !st) return st;
        if (flavor.nodeLabels.empty()) return fields.Fail("nodeLabels: missing");
        for (const policy::Flavor& other : flavors) {
          if (other.nodeLabels == flavor.nodeLabels) {
            return keyAt.Fail("has the same nodeLabels as flavor " + JsonQuote(other.name) +
                              ": a node would be of both");
          }
        }
        flavors.push_back(std::move(flavor));
        return {};
      });
  if (!st) return st;
  out = std::move(flavors);
  return {};
}

Status ReadDefaultFlavors(const Cursor& value, const std::vector<policy::Flavor>& flavors,
                          std::map<std::string, std::string, std::less<>>& out) {
  std::map<std::string, std::string, std::less<>> defaults;
  auto st = VisitEntries(
      value, [&](const std::string& ns, const Cursor& keyAt, const Cursor& flavor) -> Status {
        if (!IsDnsLabel(ns)) return keyAt.FailExpected("a namespace name such as \"team-a\"");
        std::string name;
        if (auto st = flavor.ReadString(name); !st) return st;
        bool known = std::any_of(flavors.begin(), flavors.end(),
                                 [&](const policy::Flavor& f) { return f.name == name; });
        if (!known) return flavor.FailExpected("a flavor from quota.flavors");
        defaults[ns] = std::move(name);
        return {};
      });
  if (!st) return st;
  out = std::move(defaults);
  return {};
}

}  // namespace gpugate::config
