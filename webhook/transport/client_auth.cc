#include "transport/client_auth.h"

#include <openssl/x509.h>

#include <algorithm>

#include "transport/log.h"

namespace gpugate::transport {
namespace {

constexpr std::string_view kProbes[] = {"/healthz", "/readyz"};

// The metrics label for a path: the route's name, or "other" for any path gpugate does not
// serve, so that callers cannot grow the label set.
std::string RouteLabel(std::string_view path) {
  for (std::string_view route : {"/validate", "/mutate", "/quota", "/usage", "/metrics"}) {
    if (path == route) return std::string(route.substr(1));
  }
  return "other";
}

}  // namespace

bool ClientAuth::IsOpen(std::string_view path) const {
  if (!policy_.required) return true;
  if (std::find(std::begin(kProbes), std::end(kProbes), path) != std::end(kProbes)) return true;
  return std::find(policy_.openPaths.begin(), policy_.openPaths.end(), path) !=
         policy_.openPaths.end();
}

std::string ClientAuth::Refusal(std::string_view path, const SSL* ssl) const {
  if (IsOpen(path)) return "";
  const std::string needed =
      "a client certificate signed by the CA in tls.clientCAFile is "
      "required for " +
      std::string(path);
  X509* peer = ssl ? SSL_get0_peer_certificate(ssl) : nullptr;
  if (!peer) return needed + "; the connection presented none";
  long verify = SSL_get_verify_result(ssl);
  if (verify != X509_V_OK) {
    return needed + "; the one presented was refused: " + X509_verify_cert_error_string(verify);
  }
  return "";
}

HeadVerdict ClientAuth::Check(std::string_view path, const SSL* ssl, Response& res) {
  std::string refusal = Refusal(path, ssl);
  if (refusal.empty()) return HeadVerdict::kRead;
  const std::string route = RouteLabel(path);
  const bool presented = ssl && SSL_get0_peer_certificate(ssl);
  const char* reason = presented ? "untrusted" : "no_certificate";
  {
    std::lock_guard lock(mu_);
    ++refused_[{route, reason}];
  }
  LogLine("client refused")
      .Str("route", route)
      .Str("path", path)
      .Str("reason", reason)
      .Str("error", refusal)
      .Warn();
  res.Set(403, refusal + "\n");
  res.close = true;  // its body, if any, was never read
  return HeadVerdict::kRefuse;
}

std::string ClientAuth::RenderMetrics() const {
  if (!policy_.required) return "";
  std::string out =
      "# HELP gpugate_tls_client_refused_total Requests refused for want of a client certificate "
      "that verifies against tls.clientCAFile, by route and reason.\n"
      "# TYPE gpugate_tls_client_refused_total counter\n";
  std::lock_guard lock(mu_);
  for (const auto& [key, n] : refused_) {
    out += "gpugate_tls_client_refused_total{route=\"" + key.first + "\",reason=\"" + key.second +
           "\"} " + std::to_string(n) + "\n";
  }
  return out;
}

}  // namespace gpugate::transport
