// The TLS files' parsers, on certificates issued by the certs layer: what loads, and the message
// for each way a file can be wrong.
#include "transport/tls_files.h"

#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include <ctime>
#include <memory>
#include <string>

#include "certs/certificates.h"
#include "tls/pem.h"

namespace gpugate::transport {
namespace {

certs::CertBundle Issue(const std::string& clientName = "") {
  certs::CertOptions options;
  options.extraHosts = {"127.0.0.1"};
  options.clientName = clientName;
  auto bundle = certs::IssueCertificates(options);
  EXPECT_TRUE(bundle.has_value()) << bundle.error().message;
  return bundle.value_or(certs::CertBundle{});
}

// `keyPem` encrypted with a passphrase, as `openssl pkey -aes256` writes it.
std::string EncryptedKey(const std::string& keyPem) {
  tls::BioPtr in = tls::MemoryBio(keyPem);
  tls::PkeyPtr key(PEM_read_bio_PrivateKey(in.get(), nullptr, nullptr, nullptr));
  tls::BioPtr out(BIO_new(BIO_s_mem()));
  char pass[] = "secret";
  EXPECT_EQ(
      PEM_write_bio_PrivateKey(out.get(), key.get(), EVP_aes_256_cbc(), nullptr, 0, nullptr, pass),
      1);
  char* data = nullptr;
  long size = BIO_get_mem_data(out.get(), &data);
  return std::string(data, size);
}

// A PEM certificate whose base64 body is damaged in the middle.
std::string Corrupted(std::string pem) {
  pem[pem.size() / 2] = '!';
  return pem;
}

TEST(ParseServingPair, LoadsLeafChainAndKey) {
  certs::CertBundle b = Issue();
  auto alone = ParseServingPair(b.serverCertPem, b.serverKeyPem, "c", "k");
  ASSERT_TRUE(alone.has_value()) << alone.error().message;
  EXPECT_EQ((*alone)->subject, "/CN=gpugate.gpugate-system.svc");
  EXPECT_EQ(sk_X509_num((*alone)->chain.get()), 0);
  // 365 days from now by default; the slack absorbs the test's own time.
  EXPECT_NEAR(double((*alone)->notAfter), double(std::time(nullptr) + 365 * 86400), 60);

  auto withChain = ParseServingPair(b.serverCertPem + b.caCertPem, b.serverKeyPem, "c", "k");
  ASSERT_TRUE(withChain.has_value()) << withChain.error().message;
  ASSERT_EQ(sk_X509_num((*withChain)->chain.get()), 1);
  EXPECT_EQ(
      X509_check_issued(sk_X509_value((*withChain)->chain.get(), 0), (*withChain)->leaf.get()),
      X509_V_OK);
}

TEST(ParseServingPair, RejectsEachBrokenFileNamingIt) {
  certs::CertBundle b = Issue(), other = Issue();
  const std::string encrypted = EncryptedKey(b.serverKeyPem);
  ASSERT_TRUE(encrypted.starts_with("-----BEGIN ENCRYPTED PRIVATE KEY-----")) << encrypted;
  const std::string kUndecodable =
      "tls.keyFile /t/tls.key: the PEM private key does not decode (damaged, encrypted, or of a "
      "type "
      "OpenSSL does not support)";
  struct Case {
    const char* name;
    std::string cert, key;
    std::string wantPrefix;  // the whole message when wantExact
    bool wantExact;
  } cases[] = {
      {"key of another pair", b.serverCertPem, other.serverKeyPem,
       "tls.keyFile /t/tls.key does not match tls.certFile /t/tls.crt", true},
      {"CA certificate with the server key", b.caCertPem, b.serverKeyPem,
       "tls.keyFile /t/tls.key does not match tls.certFile /t/tls.crt", true},
      {"garbage certificate", "not a certificate\n", b.serverKeyPem,
       "tls.certFile /t/tls.crt: no PEM certificate found", true},
      {"empty certificate", "", b.serverKeyPem, "tls.certFile /t/tls.crt: no PEM certificate found",
       true},
      {"key where the certificate goes", b.serverKeyPem, b.serverKeyPem,
       "tls.certFile /t/tls.crt: no PEM certificate found", true},
      {"damaged certificate", Corrupted(b.serverCertPem), b.serverKeyPem,
       "tls.certFile /t/tls.crt: malformed PEM certificate #1: error:", false},
      {"garbage key", b.serverCertPem, "garbage",
       "tls.keyFile /t/tls.key: no PEM private key found", true},
      {"certificate where the key goes", b.serverCertPem, b.serverCertPem,
       "tls.keyFile /t/tls.key: no PEM private key found", true},
      {"damaged key", b.serverCertPem, Corrupted(b.serverKeyPem), kUndecodable, true},
      // Fails instead of prompting for a passphrase on a terminal.
      {"encrypted key", b.serverCertPem, encrypted, kUndecodable, true},
  };
  for (const Case& c : cases) {
    auto pair = ParseServingPair(c.cert, c.key, "/t/tls.crt", "/t/tls.key");
    ASSERT_FALSE(pair.has_value()) << c.name;
    if (c.wantExact) {
      EXPECT_EQ(pair.error().message, c.wantPrefix) << c.name;
    } else {
      EXPECT_TRUE(pair.error().message.starts_with(c.wantPrefix))
          << c.name << ": " << pair.error().message;
      EXPECT_EQ(pair.error().message.find(" found"), std::string::npos) << c.name;
    }
  }
}

// Verifies `leaf` against the parsed CAs as a server verifies a caller.
int VerifyCaller(const ClientCa& ca, const std::string& leafPem) {
  tls::BioPtr bio = tls::MemoryBio(leafPem);
  tls::X509Ptr leaf(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
  tls::X509StoreCtxPtr ctx(X509_STORE_CTX_new());
  X509_STORE_CTX_init(ctx.get(), ca.store.get(), leaf.get(), nullptr);
  X509_STORE_CTX_set_purpose(ctx.get(), X509_PURPOSE_SSL_CLIENT);
  X509_verify_cert(ctx.get());
  return X509_STORE_CTX_get_error(ctx.get());
}

TEST(ParseClientCa, TrustsEveryCaInTheFileAndNoOther) {
  certs::CertBundle a = Issue("caller-a"), b = Issue("caller-b"), stranger = Issue("stranger");
  auto ca = ParseClientCa(a.caCertPem + b.caCertPem + a.caCertPem, "/t/ca.crt");
  ASSERT_TRUE(ca.has_value()) << ca.error().message;
  EXPECT_EQ((*ca)->count, 3);
  EXPECT_EQ(sk_X509_NAME_num((*ca)->names.get()), 1);  // both CAs are named CN=gpugate-ca
  EXPECT_EQ(VerifyCaller(**ca, a.clientCertPem), X509_V_OK);
  EXPECT_EQ(VerifyCaller(**ca, b.clientCertPem), X509_V_OK);
  EXPECT_EQ(VerifyCaller(**ca, stranger.clientCertPem),
            X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY);
  // A server certificate from a trusted CA is not a client certificate.
  EXPECT_EQ(VerifyCaller(**ca, a.serverCertPem), X509_V_ERR_INVALID_PURPOSE);
  EXPECT_NEAR(double((*ca)->earliestNotAfter), double(std::time(nullptr) + 365 * 86400), 60);
}

TEST(ParseClientCa, RejectsAFileWithoutCertificates) {
  for (std::string pem : {std::string(""), std::string("garbage\n"), Issue().serverKeyPem}) {
    auto ca = ParseClientCa(pem, "/t/ca.crt");
    ASSERT_FALSE(ca.has_value()) << pem;
    EXPECT_EQ(ca.error().message, "tls.clientCAFile /t/ca.crt: no PEM certificate found");
  }
}

TEST(ContentDigest, ChangesWithAnyByteAndWithHowPartsSplit) {
  EXPECT_EQ(ContentDigest({"ab", "c"}).size(), 32u);
  EXPECT_EQ(ContentDigest({"ab", "c"}), ContentDigest({"ab", "c"}));
  EXPECT_NE(ContentDigest({"ab", "c"}), ContentDigest({"a", "bc"}));
  EXPECT_NE(ContentDigest({"ab", "c"}), ContentDigest({"ab", "d"}));
  EXPECT_NE(ContentDigest({"abc"}), ContentDigest({"abc", ""}));
}

}  // namespace
}  // namespace gpugate::transport
