// PEM parsing on certificates and keys issued by the certs layer: what loads, in order, and the
// message for each way a text can be wrong.
#include "tls/pem.h"

#include <gtest/gtest.h>
#include <openssl/err.h>
#include <openssl/pem.h>

#include <string>

#include "certs/certificates.h"

namespace gpugate::tls {
namespace {

certs::CertBundle Issue() {
  auto bundle = certs::IssueCertificates({});
  EXPECT_TRUE(bundle.has_value()) << bundle.error().message;
  return bundle.value_or(certs::CertBundle{});
}

std::string Subject(const X509Ptr& cert) {
  char buf[256];
  return X509_NAME_oneline(X509_get_subject_name(cert.get()), buf, sizeof buf) ? buf : "";
}

// The base64 body of a PEM block damaged in the middle.
std::string Damaged(std::string pem) {
  pem[pem.size() / 2] = '!';
  return pem;
}

TEST(ParseCertificates, ReadsEveryCertificateInOrderSkippingOtherBlocks) {
  certs::CertBundle b = Issue();
  auto certs = ParseCertificates(b.serverKeyPem + b.serverCertPem + "junk\n" + b.caCertPem);
  ASSERT_TRUE(certs.has_value()) << certs.error().message;
  ASSERT_EQ(certs->size(), 2u);
  EXPECT_EQ(Subject((*certs)[0]), "/CN=gpugate.gpugate-system.svc");
  EXPECT_EQ(Subject((*certs)[1]), "/CN=gpugate-ca");
  EXPECT_EQ(ERR_peek_error(), 0u) << "the error queue is left empty";
}

TEST(ParseCertificates, SaysWhyATextHoldsNoUsableCertificate) {
  certs::CertBundle b = Issue();
  struct Case {
    const char* name;
    std::string pem;
    std::string wantPrefix;
  } cases[] = {
      {"empty", "", "no PEM certificate found"},
      {"garbage", "not a certificate\n", "no PEM certificate found"},
      {"a key only", b.serverKeyPem, "no PEM certificate found"},
      {"damaged first", Damaged(b.serverCertPem), "malformed PEM certificate #1: error:"},
      {"damaged second", b.serverCertPem + Damaged(b.caCertPem),
       "malformed PEM certificate #2: error:"},
  };
  for (const Case& c : cases) {
    auto certs = ParseCertificates(c.pem);
    ASSERT_FALSE(certs.has_value()) << c.name;
    EXPECT_TRUE(certs.error().message.starts_with(c.wantPrefix))
        << c.name << ": " << certs.error().message;
    EXPECT_EQ(ERR_peek_error(), 0u) << c.name << ": the error queue is left empty";
  }
}

// `keyPem` encrypted with a passphrase, as `openssl pkey -aes256` writes it.
std::string Encrypted(const std::string& keyPem) {
  auto key = ParsePrivateKey(keyPem);
  BioPtr out(BIO_new(BIO_s_mem()));
  char pass[] = "secret";
  EXPECT_EQ(
      PEM_write_bio_PrivateKey(out.get(), key->get(), EVP_aes_256_cbc(), nullptr, 0, nullptr, pass),
      1);
  char* data = nullptr;
  long size = BIO_get_mem_data(out.get(), &data);
  return std::string(data, static_cast<size_t>(size));
}

TEST(ParsePrivateKey, ReadsTheKeyOrSaysWhyNot) {
  certs::CertBundle b = Issue();
  auto key = ParsePrivateKey(b.serverCertPem + b.serverKeyPem);
  ASSERT_TRUE(key.has_value()) << key.error().message;
  EXPECT_EQ(EVP_PKEY_get_base_id(key->get()), EVP_PKEY_EC);

  const std::string undecodable =
      "the PEM private key does not decode (damaged, encrypted, or of a type OpenSSL does not "
      "support)";
  struct Case {
    const char* name;
    std::string pem;
    std::string want;
  } cases[] = {
      {"empty", "", "no PEM private key found"},
      {"a certificate only", b.serverCertPem, "no PEM private key found"},
      {"damaged", Damaged(b.serverKeyPem), undecodable},
      // Fails instead of prompting for a passphrase on a terminal.
      {"encrypted", Encrypted(b.serverKeyPem), undecodable},
  };
  for (const Case& c : cases) {
    auto failed = ParsePrivateKey(c.pem);
    ASSERT_FALSE(failed.has_value()) << c.name;
    EXPECT_EQ(failed.error().message, c.want) << c.name;
    EXPECT_EQ(ERR_peek_error(), 0u) << c.name << ": the error queue is left empty";
  }
}

}  // namespace
}  // namespace gpugate::tls
