#include "transport/tls_files.h"

#include <openssl/err.h>
#include <openssl/evp.h>

#include <algorithm>
#include <ctime>
#include <limits>
#include <vector>

#include "tls/pem.h"

namespace gpugate::transport {
namespace {

using tls::DrainOpenSslErrors;

// `what`: the file's setting and path, "tls.certFile /etc/gpugate/tls/tls.crt".
Result<std::vector<tls::X509Ptr>> ReadCertificates(std::string_view pem, const std::string& what) {
  auto certs = tls::ParseCertificates(pem);
  if (!certs) return Fail(what + ": " + certs.error().message);
  return certs;
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
  auto key = tls::ParsePrivateKey(keyPem);
  if (!key) return Fail("tls.keyFile " + keyFile + ": " + key.error().message);
  auto pair = std::make_shared<ServingPair>();
  pair->leaf = std::move(certs->front());
  if (X509_check_private_key(pair->leaf.get(), key->get()) != 1) {
    ERR_clear_error();
    return Fail("tls.keyFile " + keyFile + " does not match tls.certFile " + certFile);
  }
  pair->key = std::move(*key);
  pair->chain.reset(sk_X509_new_null());
  if (!pair->chain) return Fail("tls.certFile " + certFile + ": " + DrainOpenSslErrors());
  for (size_t i = 1; i < certs->size(); ++i) {
    if (sk_X509_push(pair->chain.get(), (*certs)[i].get()) == 0) {
      return Fail("tls.certFile " + certFile + ": " + DrainOpenSslErrors());
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
  if (!ca->store || !ca->names) return Fail(what + ": " + DrainOpenSslErrors());
  ca->earliestNotAfter = std::numeric_limits<int64_t>::max();
  for (const tls::X509Ptr& cert : *certs) {
    // The store takes its own reference; a name is copied. A certificate listed twice is
    // accepted by the store and advertised once.
    if (X509_STORE_add_cert(ca->store.get(), cert.get()) != 1) {
      return Fail(what + ": " + DrainOpenSslErrors());
    }
    const X509_NAME* subject = X509_get_subject_name(cert.get());
    bool listed = false;
    for (int i = 0; i < sk_X509_NAME_num(ca->names.get()); ++i) {
      listed = listed || X509_NAME_cmp(sk_X509_NAME_value(ca->names.get(), i), subject) == 0;
    }
    X509_NAME* name = listed ? nullptr : X509_NAME_dup(subject);
    if (!listed && (!name || sk_X509_NAME_push(ca->names.get(), name) == 0)) {
      X509_NAME_free(name);
      return Fail(what + ": " + DrainOpenSslErrors());
    }
    ca->earliestNotAfter =
        std::min(ca->earliestNotAfter, UnixSeconds(X509_get0_notAfter(cert.get())));
  }
  ca->count = static_cast<int>(certs->size());
  return ca;
}

std::string ContentDigest(std::initializer_list<std::string_view> parts) {
  tls::MdCtxPtr ctx(EVP_MD_CTX_new());
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
