// Kubernetes name syntax, as the API server validates it, so that a value gpugate copies into a
// pod (a scheduler name, a toleration) or matches against one (a resource name) is rejected at
// start-up rather than by the API server on every admitted pod. Internal to the config library.
#pragma once

#include <string_view>

namespace gpugate::config {

// RFC 1123 label: [a-z0-9]([-a-z0-9]*[a-z0-9])?, at most 63 characters. Namespace names.
bool IsDnsLabel(std::string_view s);

// RFC 1123 subdomain: dot-separated labels, at most 253 characters. Scheduler names.
bool IsDnsSubdomain(std::string_view s);

// [prefix/]name: an optional DNS subdomain prefix and a name of at most 63 characters of
// [A-Za-z0-9._-] that starts and ends with a letter or digit. Toleration keys.
bool IsQualifiedName(std::string_view s);

// A label value: empty, or like the name part of a qualified name. Toleration values.
bool IsLabelValue(std::string_view s);

// An extended resource name such as "nvidia.com/gpu": a qualified name with a prefix outside
// the kubernetes.io domain, not starting with "requests.".
bool IsExtendedResourceName(std::string_view s);

// An extended resource name in which '*' stands for any run of characters, with at least one '*'.
bool IsExtendedResourcePattern(std::string_view s);

}  // namespace gpugate::config
