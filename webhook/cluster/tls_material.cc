#include "cluster/tls_material.h"

#include <openssl/err.h>
#include <openssl/pem.h>

#include <string>

namespace gpugate::cluster {
namespace {

struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};
using BioPtr = std::unique_ptr<BIO, BioFree>;

BioPtr MemoryBio(std::string_view pem) {
  return BioPtr(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
}

// The reason of the oldest queued OpenSSL error; drains the thread's queue so later calls
// start clean.
std::string OpenSslReason() {
  unsigned long code = ERR_peek_error();
  const char* reason = code ? ERR_reason_error_string(code) : nullptr;
  ERR_clear_error();
  return reason ? reason : "unknown error";
}

// True when the last PEM read failed only because no further PEM block follows.
bool AtEndOfPem() {
  unsigned long code = ERR_peek_last_error();
  return ERR_GET_LIB(code) == ERR_LIB_PEM && ERR_GET_REASON(code) == PEM_R_NO_START_LINE;
}

}  // namespace

Result<std::vector<X509Ptr>> ParseCertificates(std::string_view pem) {
  ERR_clear_error();
  BioPtr bio = MemoryBio(pem);
  if (!bio) return Fail("out of memory");
  std::vector<X509Ptr> certs;
  while (X509* cert = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) {
    certs.emplace_back(cert);
  }
  if (!AtEndOfPem()) {
    return Fail("malformed PEM certificate #" + std::to_string(certs.size() + 1) + ": " +
                OpenSslReason());
  }
  ERR_clear_error();
  if (certs.empty()) return Fail("no PEM certificate found");
  return certs;
}

Result<PkeyPtr> ParsePrivateKey(std::string_view pem) {
  ERR_clear_error();
  BioPtr bio = MemoryBio(pem);
  if (!bio) return Fail("out of memory");
  // An empty passphrase callback result makes an encrypted key fail instead of prompting.
  auto noPassphrase = [](char*, int, int, void*) { return 0; };
  PkeyPtr key(PEM_read_bio_PrivateKey(bio.get(), nullptr, noPassphrase, nullptr));
  if (!key) {
    bool none = AtEndOfPem();
    std::string reason = OpenSslReason();
    return Fail(none ? "no PEM private key found" : "malformed PEM private key: " + reason);
  }
  return key;
}

}  // namespace gpugate::cluster
