// In-cluster and kubeconfig access to the Kubernetes API. Everything a client needs is read and
// checked here (files read, base64 decoded, PEM parsed), so a bad config fails at start-up with
// the file and the field, never on the first request.
#include "cluster/kube_config.h"

#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <string_view>

#include "cluster/kubeconfig_reader.h"
#include "cluster/tls_material.h"
#include "common/files.h"

namespace gpugate::cluster {

namespace {

constexpr char kServiceAccountDir[] = "/var/run/secrets/kubernetes.io/serviceaccount";

std::string_view StripBrackets(std::string_view host) {
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    return host.substr(1, host.size() - 2);
  }
  return host;
}

}  // namespace

Result<KubeConfig> InClusterConfig(const std::string& root) {
  const char* host = std::getenv("KUBERNETES_SERVICE_HOST");
  const char* port = std::getenv("KUBERNETES_SERVICE_PORT");
  if (!host || !*host || !port || !*port) {
    return Fail(
        "in-cluster config: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set "
        "(not running in a pod? give cluster.kubeconfig instead)");
  }
  KubeConfig config;
  config.host = StripBrackets(host);
  auto parsedPort = ParsePort(port);
  if (!parsedPort) {
    return Fail("in-cluster config: KUBERNETES_SERVICE_PORT=\"" + std::string(port) +
                "\" is not a port");
  }
  config.port = *parsedPort;
  std::string dir = root + kServiceAccountDir;
  config.tokenFile = dir + "/token";
  // Read now only to fail early; the client re-reads it as the kubelet rotates it.
  if (auto token = ReadFile(config.tokenFile); !token) {
    return Fail("in-cluster config: service account token: " + token.error().message);
  }
  auto ca = ReadFile(dir + "/ca.crt");
  if (!ca) return Fail("in-cluster config: service account CA: " + ca.error().message);
  if (auto certs = ParseCertificates(*ca); !certs) {
    return Fail("in-cluster config: " + dir + "/ca.crt: " + certs.error().message);
  }
  config.caPem = std::move(*ca);
  return config;
}

Result<KubeConfig> LoadKubeconfig(const std::string& path, const std::string& context) {
  auto text = ReadFile(path);
  if (!text) return Fail(text.error().message);
  try {
    return ReadKubeconfigTree(path, YAML::Load(*text), context);
  } catch (const YAML::Exception& e) {
    return Fail(path + ": " + e.what());
  }
}

}  // namespace gpugate::cluster
