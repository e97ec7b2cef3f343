// gpugate's configuration: a YAML file (as mounted from a ConfigMap) with every key optional and
// defaults built in. A wrong key or value fails start-up with the file, the key and the reason.
// docs/configuration.md documents every key.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "policy/settings.h"
#include "quota/quota_config.h"
#include "usage/budget.h"

namespace gpugate::config {

// Durations are kept to the millisecond. The file writes them in Go's syntax ("10s", "250ms";
// docs/configuration.md, "Durations"); keys that predate that take whole seconds
// (`shutdownDelaySeconds: 5`) and still work.

// The serving pair, and who may call (docs/configuration.md, "tls"). The files are re-read every
// reloadInterval while serving, so a renewed Secret is served without a restart.
struct TlsConfig {
  std::string certFile = "/etc/gpugate/tls/tls.crt";
  std::string keyFile = "/etc/gpugate/tls/tls.key";
  // "" = callers need no certificate; else every path but the probes and openPaths answers only
  // callers whose certificate chains to a CA in this file.
  std::string clientCAFile;
  std::vector<std::string> openPaths;  // "/metrics", "/quota", "/usage": answered without one
  std::chrono::milliseconds reloadInterval = std::chrono::seconds(10);
};

// Cluster mode: quota limits from ResourceQuota objects and charges shared by every replica
// through GPUQuota objects in the Kubernetes API (docs/cluster.md).
struct ClusterConfig {
  bool enabled = false;
  std::string kubeconfig;  // "" = the pod's service account (in-cluster)
  std::string context;     // "" = the kubeconfig's current-context
  // How long a charge waits for its pod to appear.
  std::chrono::milliseconds reservationGrace = std::chrono::seconds(60);
  // How often charges are checked against the pods.
  std::chrono::milliseconds reconcileInterval = std::chrono::seconds(5);
  // A connection to the API server idle this long is closed rather than reused: below
  // kube-apiserver's 90 s, so gpugate closes it before the server does.
  std::chrono::milliseconds idleConnectionTimeout = std::chrono::seconds(60);
  // The most a namespace's GPUQuota object may hold, in bytes as written: a charge that would
  // take it past this is refused (docs/cluster.md, "How many GPU pods one namespace can hold").
  int64_t maxGpuQuotaBytes = 1 << 20;
};

// The HTTPS server's deadlines and request-byte budget (docs/configuration.md, "server").
// Unset: transport::Tuning's defaults (transport/tuning.h), so the defaults have one home.
struct ServerConfig {
  std::optional<std::chrono::milliseconds> handshakeTimeout;
  std::optional<std::chrono::milliseconds> headerTimeout;
  std::optional<std::chrono::milliseconds> bodyTimeout;
  std::optional<std::chrono::milliseconds> writeTimeout;
  std::optional<std::chrono::milliseconds> handlingTimeout;
  std::optional<size_t> bufferedRequestBytes;
  std::optional<std::chrono::milliseconds> keepAliveIdle;
};

// A kind of custom resource `gpugate audit` lists (docs/configuration.md, "audit"): the path
// /apis/<group>/<version>/<resource>.
struct CustomResource {
  std::string group;     // "batch.volcano.sh"
  std::string version;   // "v1alpha1"
  std::string resource;  // "jobs": the plural, as in the API's paths

  bool operator==(const CustomResource&) const = default;
};

// What `gpugate audit` reads beyond the policy: the custom resources with pod templates to list
// besides the built-in kinds. `serve` ignores it.
struct AuditConfig {
  std::vector<CustomResource> customResources;
};

struct Config {
  std::string listen = "0.0.0.0:8443";  // HOST:PORT; port 0 picks a free port
  // On SIGTERM, how long to keep serving (not ready, answers saying Connection: close) before
  // closing the listener, so endpoints drop this instance first (docs/reliability.md).
  std::chrono::milliseconds shutdownDelay{0};
  ServerConfig server;
  TlsConfig tls;
  policy::Settings policy;  // resources, exemptNamespaces, mutation.*, security.*
  ClusterConfig cluster;
  quota::QuotaConfig quota;  // quota.*: limits per namespace, weighted figures, the journal
  AuditConfig audit;         // audit.*: for `gpugate audit` only
  usage::UsageConfig usage;  // usage.*: the time zone, history and GPU-hour budgets
};

// Parses YAML text. `source` names the file in error messages, e.g.
//   gpugate.yaml:3: mutation.coreLimit: must be "request", "off" or an integer from 1 to 100, ...
// An empty document yields the defaults.
Result<Config> ParseConfig(std::string_view yaml, std::string_view source);

// Reads and parses a file; a missing or unreadable file is an error naming the path.
Result<Config> LoadConfigFile(const std::string& path);

}  // namespace gpugate::config
