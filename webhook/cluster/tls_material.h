// PEM parsing for the Kubernetes API client: CA bundles, client certificates and keys. Used by
// the config loaders (so a bad kubeconfig fails at start-up, naming the field) and by the client.
#pragma once

#include <openssl/evp.h>
#include <openssl/x509.h>

#include <memory>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace gpugate::cluster {

struct X509Free {
  void operator()(X509* x) const { X509_free(x); }
};
struct PkeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
using X509Ptr = std::unique_ptr<X509, X509Free>;
using PkeyPtr = std::unique_ptr<EVP_PKEY, PkeyFree>;

// Every certificate of a PEM bundle, in order (a leaf, then its intermediates, for a client
// certificate). An error if there is none or one is malformed.
Result<std::vector<X509Ptr>> ParseCertificates(std::string_view pem);

// The first private key of a PEM text (PKCS#8, PKCS#1 RSA or SEC1 EC), unencrypted.
Result<PkeyPtr> ParsePrivateKey(std::string_view pem);

}  // namespace gpugate::cluster
