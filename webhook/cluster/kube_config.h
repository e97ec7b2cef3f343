// Where the Kubernetes API is and how to authenticate to it: in-cluster (the pod's service
// account) or a kubeconfig file (the current context, or a named one).
#pragma once

#include <string>

#include "common/result.h"

namespace gpugate::cluster {

struct KubeConfig {
  std::string host;  // DNS name or IP (IPv6 without brackets)
  int port = 443;
  std::string caPem;  // PEM bundle the server certificate must chain to; empty: system roots
  bool insecureSkipVerify = false;
  std::string tlsServerName;  // SNI and verification name when it differs from `host`
  // Bearer token, or a file re-read when it changes (projected service-account tokens rotate).
  std::string token;
  std::string tokenFile;
  std::string clientCertPem;  // client certificate authentication (both or neither)
  std::string clientKeyPem;
};

// The pod's service account: KUBERNETES_SERVICE_HOST/KUBERNETES_SERVICE_PORT and
// <root>/var/run/secrets/kubernetes.io/serviceaccount/{token,ca.crt}. `root` is "" in production;
// tests point it at a directory of their own.
Result<KubeConfig> InClusterConfig(const std::string& root = "");

// A kubeconfig file: `context` or the current-context; cluster server/certificate-authority(-data)/
// insecure-skip-tls-verify/tls-server-name; user token/tokenFile/client-certificate(-data)/
// client-key(-data). Relative file paths are relative to the kubeconfig's directory.
// Errors name the file and the field.
Result<KubeConfig> LoadKubeconfig(const std::string& path, const std::string& context = "");

}  // namespace gpugate::cluster
