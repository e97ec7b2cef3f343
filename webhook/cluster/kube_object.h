// The Kubernetes object vocabulary the cluster layer reads and writes, in one place: the paths
// of the collections gpugate watches and writes, a JSON path walk for objects whose shape the
// API does not promise us (a field may be missing or of another type), and the message of a
// Status object (the body of most error answers).
#pragma once

#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace gpugate::cluster {

// Collections, across every namespace.
inline constexpr std::string_view kPodCollection = "/api/v1/pods";
inline constexpr std::string_view kResourceQuotaCollection = "/api/v1/resourcequotas";
inline constexpr std::string_view kNamespaceCollection = "/api/v1/namespaces";
inline constexpr std::string_view kGpuQuotaApiVersion = "gpugate.io/v1alpha1";
inline constexpr std::string_view kGpuQuotaCollection = "/apis/gpugate.io/v1alpha1/gpuquotas";

// The GPUQuota objects of one namespace, and one of them.
std::string GpuQuotaCollectionPath(std::string_view ns);
std::string GpuQuotaPath(std::string_view ns, std::string_view name);

// The value at a path of object keys; nullptr when a step is missing or not an object.
const nlohmann::json* At(const nlohmann::json& root, std::initializer_list<std::string_view> keys);
// The string at a path of object keys; "" when it is missing or not a string.
std::string StringAt(const nlohmann::json& root, std::initializer_list<std::string_view> keys);

// The `message` of a Status object in `body`; nullopt when the body is not one (not JSON, not
// an object, no string message).
std::optional<std::string> StatusMessageOf(std::string_view body);
// For a log or an error: the Status object's message, or else the start of the body.
std::string StatusMessage(std::string_view body);

}  // namespace gpugate::cluster
