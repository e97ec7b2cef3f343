#include "cluster/kube_object.h"

namespace gpugate::cluster {

using nlohmann::json;

std::string GpuQuotaCollectionPath(std::string_view ns) {
  return "/apis/" + std::string(kGpuQuotaApiVersion) + "/namespaces/" + std::string(ns) +
         "/gpuquotas";
}

std::string GpuQuotaPath(std::string_view ns, std::string_view name) {
  return GpuQuotaCollectionPath(ns) + "/" + std::string(name);
}

const json* At(const json& root, std::initializer_list<std::string_view> keys) {
  const json* node = &root;
  for (std::string_view key : keys) {
    if (!node->is_object()) return nullptr;
    auto it = node->find(key);
    if (it == node->end()) return nullptr;
    node = &*it;
  }
  return node;
}

std::string StringAt(const json& root, std::initializer_list<std::string_view> keys) {
  const json* value = At(root, keys);
  return value && value->is_string() ? value->get<std::string>() : std::string();
}

std::optional<std::string> StatusMessageOf(std::string_view body) {
  json status = json::parse(body, nullptr, /*allow_exceptions=*/false);
  const json* message = At(status, {"message"});
  if (!message || !message->is_string()) return std::nullopt;
  return message->get<std::string>();
}

std::string StatusMessage(std::string_view body) {
  std::optional<std::string> message = StatusMessageOf(body);
  if (message && !message->empty()) return *message;
  return std::string(body.substr(0, 200));
}

}  // namespace gpugate::cluster
