// Development and bootstrap certificates for the webhook's TLS endpoint: a self-signed CA and a
// server certificate it signs, both ECDSA P-256, for the Service names the API server dials; and,
// on request, a client certificate from the same CA for a caller of a server that requires one
// (tls.clientCAFile: the API server's admission kubeconfig, or a test).
#pragma once

#include <string>
#include <vector>

#include "common/result.h"

namespace gpugate::certs {

struct CertOptions {
  std::string service = "gpugate";
  std::string ns = "gpugate-system";
  int days = 365;
  std::vector<std::string> extraHosts;  // extra SANs: DNS names or IP addresses (e.g. 127.0.0.1)
  // When set, also a client certificate with subject CN=clientName and extendedKeyUsage
  // clientAuth, signed by the same CA. 1 to 64 printable ASCII characters.
  std::string clientName;
};

struct CertBundle {
  std::string caCertPem;
  std::string serverCertPem;
  std::string serverKeyPem;   // PKCS#8 PEM
  std::string clientCertPem;  // empty unless CertOptions::clientName was set
  std::string clientKeyPem;   // PKCS#8 PEM, likewise

  // SANs on the server certificate: <svc>, <svc>.<ns>, <svc>.<ns>.svc,
  // <svc>.<ns>.svc.cluster.local, then extraHosts.
  std::vector<std::string> sans;
};

Result<CertBundle> IssueCertificates(const CertOptions& options);

// Writes ca.crt, tls.crt and tls.key (mode 0600) into `dir`, creating it if needed, and
// client.crt and client.key (0600) when the bundle has a client certificate.
Status WriteBundle(const CertBundle& bundle, const std::string& dir);

// base64 of the CA certificate PEM: the caBundle for webhook configurations.
std::string CaBundle(const CertBundle& bundle);

}  // namespace gpugate::certs
