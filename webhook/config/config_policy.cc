// The config keys that fill policy::Settings: exemptNamespaces, resources, mutation, security.
#include <string>
#include <utility>
#include <vector>

#include "common/strings.h"
#include "config/config_sections.h"
#include "config/k8s_names.h"

namespace gpugate::config {
namespace {

using policy::CoreLimitMode;
using policy::ManagedResource;
using policy::Settings;
using policy::Toleration;

// Reads a scalar and keeps it only if `valid` accepts it; otherwise "must be <what>, got ...".
Status ReadChecked(const Cursor& value, bool (*valid)(std::string_view), std::string_view what,
                   std::string& out) {
  std::string text;
  if (auto st = value.ReadString(text); !st) return st;
  if (!valid(text)) return value.FailExpected(what);
  out = std::move(text);
  return {};
}

Status AlreadyListed(const Cursor& item, const Cursor& list, size_t first, std::string_view text) {
  return item.Fail(JsonQuote(text) + " is already listed at " + list.path() + "[" +
                   std::to_string(first) + "]");
}

// --- exemptNamespaces ---

Status ReadNamespace(const Cursor& item, std::string& out) {
  return ReadChecked(item, IsDnsLabel, "a namespace name such as \"kube-system\"", out);
}

// --- resources ---

struct ResourceItem {
  ManagedResource resource;
  bool hasName = false;
  bool hasPattern = false;
};

Status ReadSchedulerName(const Cursor& value, std::string& out) {
  return ReadChecked(value, IsDnsSubdomain, "a scheduler name such as \"volcano\"", out);
}

Status ReadResourceName(const Cursor& value, ResourceItem& r) {
  r.hasName = true;
  return ReadChecked(value, IsExtendedResourceName,
                     "an extended resource name such as \"nvidia.com/gpu\"", r.resource.name);
}

Status ReadResourcePattern(const Cursor& value, ResourceItem& r) {
  r.hasPattern = true;
  r.resource.isPattern = true;
  if (value.node().IsScalar() && value.node().Scalar().find('*') == std::string::npos) {
    return value.Fail("has no '*'; use name for a single resource, got " + value.Describe());
  }
  return ReadChecked(value, IsExtendedResourcePattern,
                     "an extended resource name with '*' wildcards such as \"nvidia.com/mig-*\"",
                     r.resource.name);
}

Status ReadMaxPerContainer(const Cursor& value, ResourceItem& r) {
  int64_t max = 0;
  if (auto st = value.ReadPositiveInteger(max); !st) return st;
  r.resource.maxPerContainer = max;
  return {};
}

constexpr Field<ResourceItem> kResourceFields[] = {
    {"name", ReadResourceName},
    {"pattern", ReadResourcePattern},
    {"maxPerContainer", ReadMaxPerContainer},
    {"schedulerName",
     [](const Cursor& v, ResourceItem& r) {
       return ReadSchedulerName(v, r.resource.schedulerName);
     }},
    {"toleration",
     [](const Cursor& v, ResourceItem& r) { return v.ReadBool(r.resource.toleration); }},
};

Status ReadResource(const Cursor& item, ManagedResource& out) {
  ResourceItem r;
  if (auto st = ReadFields(item, kResourceFields, r); !st) return st;
  if (!r.hasName && !r.hasPattern) return item.Fail("needs a name or a pattern");
  if (r.hasName && r.hasPattern) return item.Fail("must have only one of name and pattern");
  out = std::move(r.resource);
  return {};
}

// --- mutation ---

bool IsTolerationKey(std::string_view s) { return s.empty() || IsQualifiedName(s); }
bool IsOperator(std::string_view s) { return s == "Exists" || s == "Equal"; }
bool IsEffect(std::string_view s) {
  return s.empty() || s == "NoSchedule" || s == "PreferNoSchedule" || s == "NoExecute";
}

constexpr Field<Toleration> kTolerationFields[] = {
    {"key",
     [](const Cursor& v, Toleration& t) {
       return ReadChecked(v, IsTolerationKey, "a taint key such as \"nvidia.com/gpu\"", t.key);
     }},
    {"operator", [](const Cursor& v,
                    Toleration& t) { return ReadChecked(v, IsOperator, "Exists or Equal", t.op); }},
    {"value",
     [](const Cursor& v, Toleration& t) {
       return ReadChecked(v, IsLabelValue, "a taint value (a label value)", t.value);
     }},
    {"effect",
     [](const Cursor& v, Toleration& t) {
       return ReadChecked(v, IsEffect, "NoSchedule, PreferNoSchedule, NoExecute or \"\"", t.effect);
     }},
};

Status ReadToleration(const Cursor& item, Toleration& out) {
  Toleration t;
  if (auto st = ReadFields(item, kTolerationFields, t); !st) return st;
  if (t.op.empty()) t.op = "Equal";  // Kubernetes' default, written out so patches are explicit
  if (t.op == "Exists" && !t.value.empty()) {
    return item.Fail("value must be empty when operator is Exists, got " + JsonQuote(t.value));
  }
  if (t.key.empty() && t.op != "Exists") return item.Fail("an empty key requires operator Exists");
  out = std::move(t);
  return {};
}

Status ReadTolerations(const Cursor& value, Settings& out) {
  std::vector<Toleration> tolerations;
  auto st = VisitList(value, [&](const Cursor& item) -> Status {
    return ReadToleration(item, tolerations.emplace_back());
  });
  if (!st) return st;
  out.tolerations = std::move(tolerations);
  return {};
}

Status ReadCoreLimit(const Cursor& value, Settings& out) {
  constexpr std::string_view kWhat = "\"request\", \"off\" or an integer from 1 to 100";
  if (auto n = value.PlainInteger()) {
    if (*n < 1 || *n > 100) return value.FailExpected(kWhat);
    out.coreLimit = {.mode = CoreLimitMode::kFixed, .value = static_cast<int>(*n)};
    return {};
  }
  std::string text;
  if (!value.node().IsScalar() || !value.ReadString(text)) return value.FailExpected(kWhat);
  if (text == "request") {
    out.coreLimit = {.mode = CoreLimitMode::kRequest};
  } else if (text == "off") {
    out.coreLimit = {.mode = CoreLimitMode::kOff};
  } else {
    return value.FailExpected(kWhat);
  }
  return {};
}

constexpr Field<Settings> kMutationFields[] = {
    {"schedulerName",
     [](const Cursor& v, Settings& s) {
       // Unlike a resource's schedulerName, "" is allowed here: it leaves schedulerName unset.
       if (v.node().IsScalar() && v.node().Scalar().empty()) return v.ReadString(s.schedulerName);
       return ReadSchedulerName(v, s.schedulerName);
     }},
    {"tolerations", ReadTolerations},
    {"coreLimit", ReadCoreLimit},
};

// --- security ---

constexpr Field<Settings> kSecurityFields[] = {
    {"denyVisibleDevicesEnv",
     [](const Cursor& v, Settings& s) { return v.ReadBool(s.denyVisibleDevicesEnv); }},
    {"denyPrivilegedGPU",
     [](const Cursor& v, Settings& s) { return v.ReadBool(s.denyPrivilegedGPU); }},
};

}  // namespace

Status ReadExemptNamespaces(const Cursor& value, Config& out) {
  std::vector<std::string> names;
  auto st = VisitList(value, [&](const Cursor& item) -> Status {
    std::string ns;
    if (auto st = ReadNamespace(item, ns); !st) return st;
    for (size_t i = 0; i < names.size(); ++i) {
      if (names[i] == ns) return AlreadyListed(item, value, i, ns);
    }
    names.push_back(std::move(ns));
    return {};
  });
  if (!st) return st;
  out.policy.exemptNamespaces = std::move(names);
  return {};
}

Status ReadResources(const Cursor& value, Config& out) {
  std::vector<ManagedResource> resources;
  auto st = VisitList(value, [&](const Cursor& item) -> Status {
    ManagedResource r;
    if (auto st = ReadResource(item, r); !st) return st;
    for (size_t i = 0; i < resources.size(); ++i) {
      if (resources[i].name == r.name) return AlreadyListed(item, value, i, r.name);
    }
    resources.push_back(std::move(r));
    return {};
  });
  if (!st) return st;
  if (resources.empty()) {
    return value.Fail("must list at least one resource; leave the key out for the built-in list");
  }
  out.policy.resources = std::move(resources);
  return {};
}

Status ReadMutation(const Cursor& value, Config& out) {
  return ReadFields(value, kMutationFields, out.policy);
}

Status ReadSecurity(const Cursor& value, Config& out) {
  return ReadFields(value, kSecurityFields, out.policy);
}

}  // namespace gpugate::config
