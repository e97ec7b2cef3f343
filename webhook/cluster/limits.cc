#include "cluster/limits.h"

#include <algorithm>

#include "quantity/quantity.h"

namespace gpugate::cluster {
namespace {

constexpr std::string_view kRequestsPrefix = "requests.";
constexpr std::string_view kFlavorPrefix = "flavor.gpugate.io/";

// "flavor.gpugate.io/a100.nvidia.com_gpu" -> "nvidia.com/gpu@a100" when a100 is a configured
// flavor; "" otherwise. Flavor names are DNS labels (no dots), and a resource's domain has no
// '_', so the first '.' ends the flavor and the first '_' after it stands for the '/'.
std::string FlavoredResource(std::string_view key, std::span<const policy::Flavor> flavors) {
  if (!key.starts_with(kFlavorPrefix)) return "";
  key.remove_prefix(kFlavorPrefix.size());
  size_t dot = key.find('.');
  if (dot == std::string_view::npos) return "";
  std::string_view flavor = key.substr(0, dot);
  std::string resource(key.substr(dot + 1));
  size_t slash = resource.find('_');
  if (slash == std::string::npos) return "";
  resource[slash] = '/';
  bool known = std::any_of(flavors.begin(), flavors.end(),
                           [&](const policy::Flavor& f) { return f.name == flavor; });
  return known ? policy::FlavoredName(resource, flavor) : "";
}

bool IsScoped(const nlohmann::json& spec) {
  auto has = [&spec](const char* key) {
    auto it = spec.find(key);
    return it != spec.end() && !it->is_null() && !it->empty();
  };
  return has("scopes") || has("scopeSelector");
}

}  // namespace

quota::Amounts ResourceQuotaLimits(const nlohmann::json& resourceQuota,
                                   const policy::Settings& settings,
                                   std::span<const policy::Flavor> flavors) {
  quota::Amounts out;
  if (!resourceQuota.is_object()) return out;
  auto spec = resourceQuota.find("spec");
  if (spec == resourceQuota.end() || !spec->is_object() || IsScoped(*spec)) return out;
  auto hard = spec->find("hard");
  if (hard == spec->end() || !hard->is_object()) return out;
  for (const auto& [key, value] : hard->items()) {
    std::string flavored = FlavoredResource(key, flavors);
    std::string_view resource = flavored.empty() ? std::string_view(key) : flavored;
    if (resource.starts_with(kRequestsPrefix)) resource.remove_prefix(kRequestsPrefix.size());
    std::string_view managed = resource.substr(0, resource.find('@'));
    if (!settings.Find(managed) || !value.is_string()) continue;
    Result<Quantity> quantity = ParseQuantity(value.get_ref<const std::string&>());
    if (!quantity || quantity->IsNegative()) continue;
    std::optional<int64_t> milli = quantity->ToMilli();
    if (!milli) continue;
    auto [it, inserted] = out.try_emplace(std::string(resource), *milli);
    if (!inserted) it->second = std::min(it->second, *milli);
  }
  return out;
}

std::string FlavorQuotaKey(std::string_view flavor, std::string_view resource) {
  std::string name(resource);
  if (size_t slash = name.find('/'); slash != std::string::npos) name[slash] = '_';
  return std::string(kFlavorPrefix) + std::string(flavor) + "." + name;
}

}  // namespace gpugate::cluster
