// The TLS settings of gpugate's listener, in one place so every server that must match it (the
// webhook, and the load benchmarks' transport floor) sets up its context the same way.
#pragma once

#include <openssl/ssl.h>

#include <string>

#include "common/result.h"

namespace gpugate::transport {

// TLS 1.2 and up, no renegotiation, server cipher preference, record buffers released while a
// connection idles, and the certificate chain and key from PEM files. Errors name the file
// ("tls.certFile /x: ...") as start-up reports them.
Status ConfigureServerTls(SSL_CTX& ctx, const std::string& certFile, const std::string& keyFile);

}  // namespace gpugate::transport
