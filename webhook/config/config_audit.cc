// The audit section: what `gpugate audit` lists beyond the built-in kinds (docs/configuration.md,
// "audit").
#include <string>
#include <vector>

#include "common/strings.h"
#include "config/config_sections.h"
#include "config/k8s_names.h"

namespace gpugate::config {
namespace {

struct ResourceItem {
  CustomResource resource;
  bool hasGroup = false, hasVersion = false, hasResource = false;
};

Status ReadLabel(const Cursor& value, std::string_view what, std::string& out, bool& seen) {
  seen = true;
  std::string text;
  if (auto st = value.ReadString(text); !st) return st;
  if (!IsDnsLabel(text)) return value.FailExpected(what);
  out = std::move(text);
  return {};
}

constexpr Field<ResourceItem> kCustomResourceFields[] = {
    {"group",
     [](const Cursor& v, ResourceItem& r) -> Status {
       r.hasGroup = true;
       std::string group;
       if (auto st = v.ReadString(group); !st) return st;
       // The core group ("") holds no custom resources; a CRD's group has a dot.
       if (!IsDnsSubdomain(group) || group.find('.') == std::string::npos) {
         return v.FailExpected("an API group with a dot such as \"batch.volcano.sh\"");
       }
       r.resource.group = std::move(group);
       return {};
     }},
    {"version",
     [](const Cursor& v, ResourceItem& r) {
       return ReadLabel(v, "an API version such as \"v1alpha1\"", r.resource.version, r.hasVersion);
     }},
    {"resource",
     [](const Cursor& v, ResourceItem& r) {
       return ReadLabel(v, "a resource's plural name such as \"jobs\"", r.resource.resource,
                        r.hasResource);
     }},
};

Status ReadCustomResources(const Cursor& value, AuditConfig& out) {
  std::vector<CustomResource> resources;
  auto st = VisitList(value, [&](const Cursor& item) -> Status {
    ResourceItem r;
    if (auto st = ReadFields(item, kCustomResourceFields, r); !st) return st;
    if (!r.hasGroup || !r.hasVersion || !r.hasResource) {
      return item.Fail("needs group, version and resource");
    }
    for (size_t i = 0; i < resources.size(); ++i) {
      const CustomResource& seen = resources[i];
      if (seen.group == r.resource.group && seen.resource == r.resource.resource) {
        return item.Fail(JsonQuote(r.resource.resource + "." + r.resource.group) +
                         " is already listed at " + value.path() + "[" + std::to_string(i) + "]");
      }
    }
    resources.push_back(std::move(r.resource));
    return {};
  });
  if (!st) return st;
  out.customResources = std::move(resources);
  return {};
}

constexpr Field<AuditConfig> kAuditFields[] = {
    {"customResources", ReadCustomResources},
};

}  // namespace

Status ReadAudit(const Cursor& value, Config& out) {
  return ReadFields(value, kAuditFields, out.audit);
}

}  // namespace gpugate::config
