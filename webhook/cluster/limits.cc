#include "cluster/limits.h"

#include <algorithm>

#include "quantity/quantity.h"

namespace gpugate::cluster {
namespace {

constexpr std::string_view kRequestsPrefix = "requests.";

bool IsScoped(const nlohmann::json& spec) {
  auto has = [&spec](const char* key) {
    auto it = spec.find(key);
    return it != spec.end() && !it->is_null() && !it->empty();
  };
  return has("scopes") || has("scopeSelector");
}

}  // namespace

quota::Amounts ResourceQuotaLimits(const nlohmann::json& resourceQuota,
                                   const policy::Settings& settings) {
  quota::Amounts out;
  if (!resourceQuota.is_object()) return out;
  auto spec = resourceQuota.find("spec");
  if (spec == resourceQuota.end() || !spec->is_object() || IsScoped(*spec)) return out;
  auto hard = spec->find("hard");
  if (hard == spec->end() || !hard->is_object()) return out;
  for (const auto& [key, value] : hard->items()) {
    std::string_view resource = key;
    if (resource.starts_with(kRequestsPrefix)) resource.remove_prefix(kRequestsPrefix.size());
    if (!settings.Find(resource) || !value.is_string()) continue;
    Result<Quantity> quantity = ParseQuantity(value.get_ref<const std::string&>());
    if (!quantity || quantity->IsNegative()) continue;
    std::optional<int64_t> milli = quantity->ToMilli();
    if (!milli) continue;
    auto [it, inserted] = out.try_emplace(std::string(resource), *milli);
    if (!inserted) it->second = std::min(it->second, *milli);
  }
  return out;
}

quota::Amounts MinLimits(const quota::Amounts& a, const quota::Amounts& b) {
  quota::Amounts out = a;
  for (const auto& [resource, milli] : b) {
    auto [it, inserted] = out.try_emplace(resource, milli);
    if (!inserted) it->second = std::min(it->second, milli);
  }
  return out;
}

}  // namespace gpugate::cluster
