#include "tls/pem.h"

#include <openssl/err.h>
#include <openssl/pem.h>

#include <string>

namespace gpugate::tls {
namespace {

// True when the last queued error only says the PEM text has no further block, which is how
// reading a sequence of PEM blocks ends.
bool OnlyNoMoreBlocks() {
  unsigned long e = ERR_peek_last_error();
  return e == 0 || (ERR_GET_LIB(e) == ERR_LIB_PEM && ERR_GET_REASON(e) == PEM_R_NO_START_LINE);
}

// A passphrase callback that has none: an encrypted key fails to load instead of OpenSSL's
// default prompting on a terminal.
int NoPassphrase(char*, int, int, void*) { return -1; }

}  // namespace

BioPtr MemoryBio(std::string_view text) {
  return BioPtr(BIO_new_mem_buf(text.data(), static_cast<int>(text.size())));
}

std::string DrainOpenSslErrors() {
  std::string out;
  char buf[256];
  for (unsigned long e = ERR_get_error(); e != 0; e = ERR_get_error()) {
    ERR_error_string_n(e, buf, sizeof buf);
    out += (out.empty() ? "" : "; ") + std::string(buf);
  }
  return out.empty() ? "unknown OpenSSL error" : out;
}

Result<std::vector<X509Ptr>> ParseCertificates(std::string_view pem) {
  ERR_clear_error();
  BioPtr bio = MemoryBio(pem);
  if (!bio) return Fail(DrainOpenSslErrors());
  std::vector<X509Ptr> certs;
  while (X509* cert = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) {
    certs.emplace_back(cert);
  }
  if (!OnlyNoMoreBlocks()) {
    return Fail("malformed PEM certificate #" + std::to_string(certs.size() + 1) + ": " +
                DrainOpenSslErrors());
  }
  ERR_clear_error();
  if (certs.empty()) return Fail("no PEM certificate found");
  return certs;
}

Result<PkeyPtr> ParsePrivateKey(std::string_view pem) {
  ERR_clear_error();
  BioPtr bio = MemoryBio(pem);
  PkeyPtr key(bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, NoPassphrase, nullptr) : nullptr);
  if (key) return key;
  // OpenSSL 3's key decoders say "unsupported" for every failure, so the text itself tells a
  // missing key from one that is there and does not decode.
  ERR_clear_error();
  if (pem.find("PRIVATE KEY-----") == std::string_view::npos) {
    return Fail("no PEM private key found");
  }
  return Fail(
      "the PEM private key does not decode (damaged, encrypted, or of a type OpenSSL does not "
      "support)");
}

}  // namespace gpugate::tls
