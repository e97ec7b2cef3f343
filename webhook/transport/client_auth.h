// Who may call which path when gpugate asks callers for a certificate (tls.clientCAFile). The
// probes answer anyone, since the kubelet presents no certificate. Every other path (the
// admission routes, /quota, /metrics, and paths that do not exist) answers only a caller whose
// certificate verified against the client CA, except the paths the operator lists in
// tls.openPaths (/metrics, /quota and /usage may be). docs/decisions.md, "Certificate rotation and
// mutual TLS", says why.
#pragma once

#include <openssl/ssl.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "transport/http_message.h"

namespace gpugate::transport {

struct ClientAuthPolicy {
  bool required = false;               // tls.clientCAFile is set
  std::vector<std::string> openPaths;  // answered without a certificate as well
};

// Thread-safe.
class ClientAuth {
 public:
  explicit ClientAuth(ClientAuthPolicy policy) : policy_(std::move(policy)) {}

  // kRefuse when certificates are required and the caller on `ssl` may not use `path`: `res`
  // then answers 403 with the reason as plain text, and the refusal is counted and logged.
  // Meant for the server's head check, which runs before the body is read (the connection
  // closes after).
  HeadVerdict Check(std::string_view path, const SSL* ssl, Response& res);

  // Why the caller on the connection `ssl` may not use `path`, or "" when it may.
  std::string Refusal(std::string_view path, const SSL* ssl) const;

  // gpugate_tls_client_refused_total{route,reason}; nothing when certificates are not required.
  std::string RenderMetrics() const;

 private:
  bool IsOpen(std::string_view path) const;

  const ClientAuthPolicy policy_;
  mutable std::mutex mu_;
  std::map<std::pair<std::string, std::string>, uint64_t> refused_;  // guarded by mu_
};

}  // namespace gpugate::transport
