// Hard limits from Kubernetes ResourceQuota objects, and how they combine with the config file's.
#pragma once

#include <nlohmann/json.hpp>
#include <span>

#include "policy/flavor.h"
#include "policy/settings.h"
#include "quota/amounts.h"

namespace gpugate::cluster {

// The limits one ResourceQuota object sets on managed resources (settings.Find), in milli-units:
// spec.hard["requests.<resource>"] and spec.hard["<resource>"], the smaller where both are set.
// Values are Kubernetes quantities; one that does not parse, is negative or is out of range is
// ignored (the apiserver validates them, so this only guards against garbage). A quota with
// spec.scopes or spec.scopeSelector covers only some pods and is ignored: applying it to every
// GPU pod would refuse pods Kubernetes itself admits. Weighted figures are never read from here.
//
// A limit per GPU flavor is spec.hard["flavor.gpugate.io/<flavor>.<resource>"], the resource's
// '/' written '_' ("flavor.gpugate.io/a100.nvidia.com_gpu": a qualified name, which the API
// server accepts as a quota resource name, and which none of its quota evaluators matches, so
// Kubernetes' own quota admission leaves it alone); it is read as "nvidia.com/gpu@a100" for a
// flavor in `flavors`, and ignored for any other.
quota::Amounts ResourceQuotaLimits(const nlohmann::json& resourceQuota,
                                   const policy::Settings& settings,
                                   std::span<const policy::Flavor> flavors = {});

// The spec.hard key of a limit per flavor: "flavor.gpugate.io/a100.nvidia.com_gpu".
std::string FlavorQuotaKey(std::string_view flavor, std::string_view resource);

// Per resource, the smaller of `a` and `b` where both set one, else whichever does.
using quota::MinLimits;

}  // namespace gpugate::cluster
