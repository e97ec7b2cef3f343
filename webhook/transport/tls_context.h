// The TLS settings of gpugate's listener, in one place so every server that must match it (the
// webhook, and the load benchmarks' transport floor) sets up its context the same way.
#pragma once

#include <openssl/ssl.h>

#include <string>

#include "common/result.h"

namespace gpugate::transport {

// TLS 1.2 and up, no renegotiation, server cipher preference, and record buffers released while
// a connection idles. No certificate: the webhook installs its pair at each handshake
// (transport/tls_reloader.h), so that a renewed pair is served without a restart.
void ConfigureServerProtocol(SSL_CTX& ctx);

// ConfigureServerProtocol, then the certificate chain and key from PEM files, fixed for the
// context's life (the benchmarks' floor server). Errors name the file ("tls.certFile /x: ...")
// as start-up reports them.
Status ConfigureServerTls(SSL_CTX& ctx, const std::string& certFile, const std::string& keyFile);

}  // namespace gpugate::transport
