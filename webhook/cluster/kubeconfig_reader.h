// Internal to the cluster library: the kubeconfig tree -> KubeConfig (kubeconfig_reader.cc).
#pragma once

#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "cluster/kube_config.h"

namespace gpugate::cluster {

// "https://HOST[:PORT][/]" -> {host, port}; IPv6 in brackets (returned without), port 443 by
// default. A path prefix, user info or plain http is an error.
Result<std::pair<std::string, int>> ParseServerUrl(std::string_view url);

// 1..65535.
std::optional<int> ParsePort(std::string_view text);

// `root` is the parsed file at `path` (for messages and relative paths). May throw
// YAML::Exception only for trees yaml-cpp itself cannot walk; LoadKubeconfig catches it.
Result<KubeConfig> ReadKubeconfigTree(const std::string& path, const YAML::Node& root,
                                      const std::string& context);

}  // namespace gpugate::cluster
