#include "config/k8s_names.h"

#include <algorithm>
#include <string>

namespace gpugate::config {
namespace {

bool IsLowerAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

bool IsAlnum(char c) { return IsLowerAlnum(c) || (c >= 'A' && c <= 'Z'); }

// [A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?, at most 63 characters.
bool IsNamePart(std::string_view s) {
  if (s.empty() || s.size() > 63 || !IsAlnum(s.front()) || !IsAlnum(s.back())) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return IsAlnum(c) || c == '-' || c == '_' || c == '.'; });
}

}  // namespace

bool IsDnsLabel(std::string_view s) {
  if (s.empty() || s.size() > 63 || !IsLowerAlnum(s.front()) || !IsLowerAlnum(s.back())) {
    return false;
  }
  return std::all_of(s.begin(), s.end(), [](char c) { return IsLowerAlnum(c) || c == '-'; });
}

bool IsDnsSubdomain(std::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  // Kubernetes limits only the whole name, not each label, so test labels without the 63 cap.
  while (true) {
    size_t dot = s.find('.');
    std::string_view label = s.substr(0, dot);
    if (label.empty() || !IsLowerAlnum(label.front()) || !IsLowerAlnum(label.back())) return false;
    if (!std::all_of(label.begin(), label.end(),
                     [](char c) { return IsLowerAlnum(c) || c == '-'; })) {
      return false;
    }
    if (dot == std::string_view::npos) return true;
    s.remove_prefix(dot + 1);
  }
}

bool IsQualifiedName(std::string_view s) {
  size_t slash = s.find('/');
  if (slash == std::string_view::npos) return IsNamePart(s);
  return IsDnsSubdomain(s.substr(0, slash)) && IsNamePart(s.substr(slash + 1));
}

bool IsLabelValue(std::string_view s) { return s.empty() || IsNamePart(s); }

bool IsExtendedResourceName(std::string_view s) {
  size_t slash = s.find('/');
  if (slash == std::string_view::npos) return false;  // unprefixed names are native resources
  // The API server treats any name containing "kubernetes.io/" as native.
  if (s.find("kubernetes.io/") != std::string_view::npos) return false;
  if (s.starts_with("requests.")) return false;  // reserved for quota
  // The API server checks "requests." + name, so the prefix has 9 characters fewer to spare.
  return IsQualifiedName(std::string("requests.").append(s));
}

bool IsExtendedResourcePattern(std::string_view s) {
  if (s.find('*') == std::string_view::npos) return false;
  // 'x' is valid in any position of a name, so reading each '*' as 'x' rejects malformed
  // patterns ("gpu*", "nvidia.com/-*") without rejecting useful ones.
  std::string filled(s);
  std::replace(filled.begin(), filled.end(), '*', 'x');
  return IsExtendedResourceName(filled);
}

}  // namespace gpugate::config
