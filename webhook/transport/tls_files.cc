#include "transport/tls_files.h"

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <algorithm>
#include <ctime>
#include <limits>
#include <vector>

namespace gpugate::transport {
namespace {

using BioPtr = std::unique_ptr<BIO, decltype(&BIO_free)>;
using X509Ptr = std::unique_ptr<X509, OpenSslFree>;

BioPtr MemoryBio(std::string_view text) {
  return BioPtr(BIO_new_mem_buf(text.data(), static_cast<int>(text.size())), BIO_free);
}

// The thread's queued OpenSSL errors, "; "-joined; the queue is left empty.
std::string OpenSslErrors() {
  std::string out;
  char buf[256];
  for (unsigned long e = ERR_get_error(); e != 0; e = ERR_get_error()) {
    ERR_error_string_n(e, buf, sizeof buf);
    out += (out.empty() ? "" : "; ") + std::string(buf);
  }
  return out.empty() ? "unknown OpenSSL error" : out;
}

// True when the last queued error only says the PEM text has no further block, which is how
// reading a sequence of PEM blocks ends.
bool OnlyNoMoreBlocks() {
  unsigned long e = ERR_peek_last_error();
  return e == 0 || (ERR_GET_LIB(e) == ERR_LIB_PEM && ERR_GET_REASON(e) == PEM_R_NO_START_LINE);
}

// Every certificate in `pem`, in order; other PEM blocks are skipped. A block that is there but
// does not decode is an error, not the end of the list.
Result<std::vector<X509Ptr>> ReadCertificates(std::string_view pem, const std::string& what) {
  ERR_clear_error();
  BioPtr bio = MemoryBio(pem);
  if (!bio) return Fail(what + ": " + OpenSslErrors());
  std::vector<X509Ptr> certs;
  while (X509* cert = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) {
    certs.emplace_back(cert);
  }
  if (!OnlyNoMoreBlocks()) return Fail(what + ": " + OpenSslErrors());
  ERR_clear_error();
  if (certs.empty()) return Fail(what + ": no certificate found");
  return certs;
}

// A passphrase callback that has none: an encrypted key fails to load instead of OpenSSL's
// default prompting on a terminal.
int NoPassphrase(char*, int, int, void*) { return -1; }

Result<std::unique_ptr<EVP_PKEY, OpenSslFree>> ReadKey(std::string_view pem,
                                                       const std::string& what) {
  ERR_clear_error();
  BioPtr bio = MemoryBio(pem);
  EVP_PKEY* key =
      bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, NoPassphrase, nullptr) : nullptr;
  if (!key) {
    // OpenSSL 3's key decoders say "unsupported" for every failure, so the text itself tells
    // a missing key from one that is there and does not decode.
    ERR_clear_error();
    if (pem.find("PRIVATE KEY-----") == std::string_view::npos) {
      return Fail(what + ": no private key found");
    }
    return Fail(what +
                ": the private key does not decode (damaged, encrypted, or of a type "
                "OpenSSL does not support)");
  }
  return std::unique_ptr<EVP_PKEY, OpenSslFree>(key);
}

int64_t UnixSeconds(const ASN1_TIME* t) {
  std::tm tm{};
  if (ASN1_TIME_to_tm(t, &tm) != 1) return 0;
  return static_cast<int64_t>(timegm(&tm));
}

std::string OneLine(const X509_NAME* name) {
  char buf[512];
  return X509_NAME_oneline(name, buf, sizeof buf) ? buf : "";
}

}  // namespace

Result<std::shared_ptr<const ServingPair>> ParseServingPair(std::string_view certPem,
                                                            std::string_view keyPem,
                                                            const std::string& certFile,
                                                            const std::string& keyFile) {
  auto certs = ReadCertificates(certPem, "tls.certFile " + certFile);
  if (!certs) return std::unexpected(certs.error());
  auto key = ReadKey(keyPem, "tls.keyFile " + keyFile);
  if (!key) return std::unexpected(key.error());
  auto pair = std::make_shared<ServingPair>();
  pair->leaf = std::move(certs->front());
  if (X509_check_private_key(pair->leaf.get(), key->get()) != 1) {
    ERR_clear_error();
    return Fail("tls.keyFile " + keyFile + " does not match tls.certFile " + certFile);
  }
  pair->key = std::move(*key);
  pair->chain.reset(sk_X509_new_null());
  if (!pair->chain) return Fail("tls.certFile " + certFile + ": " + OpenSslErrors());
  for (size_t i = 1; i < certs->size(); ++i) {
    if (sk_X509_push(pair->chain.get(), (*certs)[i].get()) == 0) {
      return Fail("tls.certFile " + certFile + ": " + OpenSslErrors());
    }
    (*certs)[i].release();  // now owned by the chain
  }
  pair->notAfter = UnixSeconds(X509_get0_notAfter(pair->leaf.get()));
  pair->subject = OneLine(X509_get_subject_name(pair->leaf.get()));
  return pair;
}

Result<std::shared_ptr<const ClientCa>> ParseClientCa(std::string_view pem,
                                                      const std::string& file) {
  const std::string what = "tls.clientCAFile " + file;
  auto certs = ReadCertificates(pem, what);
  if (!certs) return std::unexpected(certs.error());
  auto ca = std::make_shared<ClientCa>();
  ca->store.reset(X509_STORE_new());
  ca->names.reset(sk_X509_NAME_new_null());
  if (!ca->store || !ca->names) return Fail(what + ": " + OpenSslErrors());
  ca->earliestNotAfter = std::numeric_limits<int64_t>::max();
  for (const X509Ptr& cert : *certs) {
    // The store takes its own reference; a name is copied. A certificate listed twice is
    // accepted by the store and advertised once.
    if (X509_STORE_add_cert(ca->store.get(), cert.get()) != 1) {
      return Fail(what + ": " + OpenSslErrors());
    }
    const X509_NAME* subject = X509_get_subject_name(cert.get());
    bool listed = false;
    for (int i = 0; i < sk_X509_NAME_num(ca->names.get()); ++i) {
      listed = listed || X509_NAME_cmp(sk_X509_NAME_value(ca->names.get(), i), subject) == 0;
    }
    X509_NAME* name = listed ? nullptr : X509_NAME_dup(subject);
    if (!listed && (!name || sk_X509_NAME_push(ca->names.get(), name) == 0)) {
      X509_NAME_free(name);
      return Fail(what + ": " + OpenSslErrors());
    }
    ca->earliestNotAfter =
        std::min(ca->earliestNotAfter, UnixSeconds(X509_get0_notAfter(cert.get())));
  }
  ca->count = static_cast<int>(certs->size());
  return ca;
}

std::string ContentDigest(std::initializer_list<std::string_view> parts) {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  bool ok = ctx && EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) == 1;
  for (std::string_view part : parts) {
    uint64_t length = part.size();
    ok = ok && EVP_DigestUpdate(ctx.get(), &length, sizeof length) == 1 &&
         EVP_DigestUpdate(ctx.get(), part.data(), part.size()) == 1;
  }
  ok = ok && EVP_DigestFinal_ex(ctx.get(), md, &size) == 1;
  // SHA-256 fails only when memory runs out; the files then read as unchanged until it returns.
  return ok ? std::string(reinterpret_cast<const char*>(md), size) : std::string();
}

}  // namespace gpugate::transport
