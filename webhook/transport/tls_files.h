// The TLS material gpugate serves with, parsed from the PEM text of its files and checked: the
// serving pair (certificate chain and key) and the CAs that callers' certificates must chain to
// (tls.clientCAFile). Parsing only: no SSL_CTX, no threads; transport/tls_reloader.h decides
// when to read the files and which material is current.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>

#include "common/result.h"
#include "tls/openssl_ptr.h"

namespace gpugate::transport {

// Shared as `shared_ptr<const ServingPair>`: never changed once parsed, so any number of
// handshakes may install it at once (each SSL takes its own references).
struct ServingPair {
  tls::X509Ptr leaf;
  tls::CertificateStackPtr chain;  // intermediates after the leaf; may be empty
  tls::PkeyPtr key;
  int64_t notAfter = 0;  // the leaf's, in Unix seconds
  std::string subject;   // the leaf's, one line, for logs
};

// The certificates in `certPem` (leaf first, then its intermediates) and the private key in
// `keyPem`, which must belong to the leaf. The file names are for messages, which read as
// start-up reports them:
//   tls.certFile /etc/gpugate/tls/tls.crt: no PEM certificate found
//   tls.keyFile /etc/gpugate/tls/tls.key does not match tls.certFile /etc/gpugate/tls/tls.crt
Result<std::shared_ptr<const ServingPair>> ParseServingPair(std::string_view certPem,
                                                            std::string_view keyPem,
                                                            const std::string& certFile,
                                                            const std::string& keyFile);

// The CAs a caller's certificate may chain to: a verification store, and the names a
// CertificateRequest advertises. Shared as `shared_ptr<const ClientCa>`, like ServingPair.
struct ClientCa {
  tls::X509StorePtr store;
  tls::NameStackPtr names;
  int count = 0;
  int64_t earliestNotAfter = 0;  // Unix seconds
};

// Every certificate in `pem`; at least one is required.
//   tls.clientCAFile /etc/gpugate/client-ca/ca.crt: no PEM certificate found
Result<std::shared_ptr<const ClientCa>> ParseClientCa(std::string_view pem,
                                                      const std::string& file);

// SHA-256 over the parts, each prefixed with its length, as 32 raw bytes: how the reloader
// notices that files changed, whatever their timestamps say.
std::string ContentDigest(std::initializer_list<std::string_view> parts);

}  // namespace gpugate::transport
