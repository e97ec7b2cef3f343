// Checks the issued certificates the way their consumers do: parsed back from PEM and verified
// with OpenSSL's own chain, hostname and IP checks, written to disk, and used in a handshake.
#include "certs/certificates.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "support/temp_dir.h"
#include "tls/pem.h"

namespace gpugate::certs {
namespace {

namespace fs = std::filesystem;

using tls::BignumPtr;
using tls::BioPtr;
using tls::GeneralNamesPtr;
using tls::PkeyPtr;
using tls::SslCtxPtr;
using tls::SslPtr;
using tls::X509Ptr;
using StorePtr = tls::X509StorePtr;
using StoreCtxPtr = tls::X509StoreCtxPtr;

constexpr const char* kServiceHost = "gpugate.gpugate-system.svc";

X509Ptr ParseCert(const std::string& pem) {
  auto certs = tls::ParseCertificates(pem);
  return certs ? std::move(certs->front()) : nullptr;
}

PkeyPtr ParseKey(const std::string& pem) { return tls::ParsePrivateKey(pem).value_or(nullptr); }

CertBundle Issue(const CertOptions& options = {}) {
  Result<CertBundle> bundle = IssueCertificates(options);
  EXPECT_TRUE(bundle.has_value()) << bundle.error().message;
  return bundle.value_or(CertBundle{});
}

// Verifies `leaf` against `ca` as a TLS client would: the chain, and the server-auth purpose.
int VerifyServerCert(X509* ca, X509* leaf) {
  StorePtr store(X509_STORE_new());
  StoreCtxPtr ctx(X509_STORE_CTX_new());
  X509_STORE_add_cert(store.get(), ca);
  X509_STORE_CTX_init(ctx.get(), store.get(), leaf, nullptr);
  X509_STORE_CTX_set_purpose(ctx.get(), X509_PURPOSE_SSL_SERVER);
  X509_verify_cert(ctx.get());
  return X509_STORE_CTX_get_error(ctx.get());
}

// SANs rendered as "DNS:name" or "IP:address", in certificate order.
std::vector<std::string> SubjectAltNames(X509* cert) {
  GeneralNamesPtr names(
      static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(cert, NID_subject_alt_name, nullptr, nullptr)));
  std::vector<std::string> out;
  for (int i = 0; names && i < sk_GENERAL_NAME_num(names.get()); ++i) {
    const GENERAL_NAME* name = sk_GENERAL_NAME_value(names.get(), i);
    int type = 0;
    auto* value = static_cast<ASN1_STRING*>(GENERAL_NAME_get0_value(name, &type));
    const auto* data = reinterpret_cast<const char*>(ASN1_STRING_get0_data(value));
    if (type == GEN_DNS) {
      out.push_back("DNS:" + std::string(data, ASN1_STRING_length(value)));
    } else if (type == GEN_IPADD) {
      char text[INET6_ADDRSTRLEN];
      int family = ASN1_STRING_length(value) == 4 ? AF_INET : AF_INET6;
      out.push_back(std::string("IP:") + inet_ntop(family, data, text, sizeof(text)));
    }
  }
  return out;
}

bool IsCritical(X509* cert, int nid) {
  int index = X509_get_ext_by_NID(cert, nid, -1);
  return index >= 0 && X509_EXTENSION_get_critical(X509_get_ext(cert, index)) == 1;
}

std::string CommonName(X509* cert) {
  char buf[256] = {};
  X509_NAME_get_text_by_NID(X509_get_subject_name(cert), NID_commonName, buf, sizeof(buf));
  return buf;
}

TEST(IssueCertificates, ServerCertVerifiesAgainstCaForServiceHostname) {
  CertBundle bundle = Issue();
  X509Ptr ca = ParseCert(bundle.caCertPem);
  X509Ptr leaf = ParseCert(bundle.serverCertPem);
  ASSERT_TRUE(ca && leaf);
  EXPECT_EQ(VerifyServerCert(ca.get(), leaf.get()), X509_V_OK);
  for (const char* host : {kServiceHost, "gpugate", "gpugate.gpugate-system",
                           "gpugate.gpugate-system.svc.cluster.local"}) {
    EXPECT_EQ(X509_check_host(leaf.get(), host, 0, 0, nullptr), 1) << host;
  }
  EXPECT_NE(X509_check_host(leaf.get(), "other.gpugate-system.svc", 0, 0, nullptr), 1);
  EXPECT_NE(X509_check_ip_asc(leaf.get(), "127.0.0.1", 0), 1);  // only when asked for
}

TEST(IssueCertificates, SansFollowServiceNamesThenExtraHosts) {
  CertOptions options;
  options.service = "gate";
  options.ns = "infra";
  options.extraHosts = {"127.0.0.1", "localhost", "::1", "*.example.com"};
  CertBundle bundle = Issue(options);
  std::vector<std::string> want = {
      "gate",      "gate.infra", "gate.infra.svc", "gate.infra.svc.cluster.local", "127.0.0.1",
      "localhost", "::1",        "*.example.com"};
  EXPECT_EQ(bundle.sans, want);
  X509Ptr leaf = ParseCert(bundle.serverCertPem);
  ASSERT_TRUE(leaf);
  std::vector<std::string> inCert = {"DNS:gate",
                                     "DNS:gate.infra",
                                     "DNS:gate.infra.svc",
                                     "DNS:gate.infra.svc.cluster.local",
                                     "IP:127.0.0.1",
                                     "DNS:localhost",
                                     "IP:::1",
                                     "DNS:*.example.com"};
  EXPECT_EQ(SubjectAltNames(leaf.get()), inCert);
  EXPECT_EQ(X509_check_ip_asc(leaf.get(), "127.0.0.1", 0), 1);
  EXPECT_EQ(X509_check_ip_asc(leaf.get(), "::1", 0), 1);
  EXPECT_EQ(X509_check_host(leaf.get(), "hooks.example.com", 0, 0, nullptr), 1);
  EXPECT_EQ(CommonName(leaf.get()), "gate.infra.svc");
}

TEST(IssueCertificates, CaIsSelfSignedAndLimitedToSigning) {
  X509Ptr ca = ParseCert(Issue().caCertPem);
  ASSERT_TRUE(ca);
  EXPECT_EQ(CommonName(ca.get()), "gpugate-ca");
  EXPECT_EQ(X509_check_issued(ca.get(), ca.get()), X509_V_OK);
  EXPECT_EQ(X509_get_signature_nid(ca.get()), NID_ecdsa_with_SHA256);
  EXPECT_EQ(X509_check_ca(ca.get()), 1);
  EXPECT_TRUE(IsCritical(ca.get(), NID_basic_constraints));
  EXPECT_TRUE(IsCritical(ca.get(), NID_key_usage));
  EXPECT_EQ(X509_get_key_usage(ca.get()), uint32_t{KU_KEY_CERT_SIGN | KU_CRL_SIGN});
  EXPECT_NE(X509_get0_subject_key_id(ca.get()), nullptr);
}

TEST(IssueCertificates, ServerCertIsLeafForServerAuth) {
  CertBundle bundle = Issue();
  X509Ptr ca = ParseCert(bundle.caCertPem);
  X509Ptr leaf = ParseCert(bundle.serverCertPem);
  ASSERT_TRUE(ca && leaf);
  EXPECT_EQ(CommonName(leaf.get()), kServiceHost);
  EXPECT_EQ(X509_NAME_cmp(X509_get_issuer_name(leaf.get()), X509_get_subject_name(ca.get())), 0);
  EXPECT_EQ(X509_get_signature_nid(leaf.get()), NID_ecdsa_with_SHA256);
  EXPECT_EQ(X509_check_ca(leaf.get()), 0);
  EXPECT_TRUE(IsCritical(leaf.get(), NID_key_usage));
  EXPECT_EQ(X509_get_key_usage(leaf.get()), uint32_t{KU_DIGITAL_SIGNATURE});
  EXPECT_EQ(X509_get_extended_key_usage(leaf.get()), uint32_t{XKU_SSL_SERVER});
  ASSERT_NE(X509_get0_subject_key_id(leaf.get()), nullptr);
  const ASN1_OCTET_STRING* aki = X509_get0_authority_key_id(leaf.get());
  ASSERT_NE(aki, nullptr);
  EXPECT_EQ(ASN1_OCTET_STRING_cmp(aki, X509_get0_subject_key_id(ca.get())), 0);
}

TEST(IssueCertificates, KeyIsPkcs8P256MatchingServerCert) {
  CertBundle bundle = Issue();
  EXPECT_TRUE(bundle.serverKeyPem.starts_with("-----BEGIN PRIVATE KEY-----\n"));
  PkeyPtr key = ParseKey(bundle.serverKeyPem);
  X509Ptr leaf = ParseCert(bundle.serverCertPem);
  X509Ptr ca = ParseCert(bundle.caCertPem);
  ASSERT_TRUE(key && leaf && ca);
  EXPECT_EQ(X509_check_private_key(leaf.get(), key.get()), 1);
  EXPECT_NE(X509_check_private_key(ca.get(), key.get()), 1);
  for (EVP_PKEY* k : {key.get(), X509_get0_pubkey(ca.get())}) {
    char group[64] = {};
    ASSERT_TRUE(EVP_PKEY_is_a(k, "EC"));
    EVP_PKEY_get_utf8_string_param(k, OSSL_PKEY_PARAM_GROUP_NAME, group, sizeof(group), nullptr);
    EXPECT_STREQ(group, "prime256v1");
  }
  ERR_clear_error();  // the mismatch check above queues an error by design
}

TEST(IssueCertificates, ValidityStartsAnHourAgoAndLastsRequestedDays) {
  for (int days : {1, 30, 365, 36500}) {
    CertOptions options;
    options.days = days;
    CertBundle bundle = Issue(options);
    for (const std::string* pem : {&bundle.caCertPem, &bundle.serverCertPem}) {
      X509Ptr cert = ParseCert(*pem);
      ASSERT_TRUE(cert);
      // Measured from now; the slack absorbs the time the test itself takes.
      int day = 0, sec = 0;
      ASSERT_EQ(ASN1_TIME_diff(&day, &sec, nullptr, X509_get0_notAfter(cert.get())), 1);
      EXPECT_NEAR(day * 86400.0 + sec, days * 86400.0, 60) << "days=" << days;
      ASSERT_EQ(ASN1_TIME_diff(&day, &sec, nullptr, X509_get0_notBefore(cert.get())), 1);
      EXPECT_NEAR(day * 86400.0 + sec, -3600.0, 60) << "days=" << days;
    }
  }
}

TEST(IssueCertificates, EachIssuanceHasFreshSerialsAndKeys) {
  CertBundle first = Issue(), second = Issue();
  X509Ptr ca1 = ParseCert(first.caCertPem), ca2 = ParseCert(second.caCertPem);
  X509Ptr leaf1 = ParseCert(first.serverCertPem), leaf2 = ParseCert(second.serverCertPem);
  ASSERT_TRUE(ca1 && ca2 && leaf1 && leaf2);
  EXPECT_NE(ASN1_INTEGER_cmp(X509_get0_serialNumber(ca1.get()), X509_get0_serialNumber(ca2.get())),
            0);
  EXPECT_NE(
      ASN1_INTEGER_cmp(X509_get0_serialNumber(leaf1.get()), X509_get0_serialNumber(leaf2.get())),
      0);
  EXPECT_NE(EVP_PKEY_eq(X509_get0_pubkey(ca1.get()), X509_get0_pubkey(ca2.get())), 1);
  EXPECT_NE(EVP_PKEY_eq(X509_get0_pubkey(leaf1.get()), X509_get0_pubkey(leaf2.get())), 1);
  EXPECT_NE(EVP_PKEY_eq(X509_get0_pubkey(ca1.get()), X509_get0_pubkey(leaf1.get())), 1);
  for (X509* cert : {ca1.get(), leaf1.get(), leaf2.get()}) {
    BignumPtr serial(ASN1_INTEGER_to_BN(X509_get0_serialNumber(cert), nullptr));
    ASSERT_TRUE(serial);
    EXPECT_FALSE(BN_is_negative(serial.get()));
    EXPECT_GT(BN_num_bits(serial.get()), 64);  // fails with probability 2^-63
    EXPECT_LE(BN_num_bits(serial.get()), 128);
  }
  // A server certificate is trusted only through the CA that issued it.
  EXPECT_EQ(VerifyServerCert(ca2.get(), leaf1.get()), X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY);
}

TEST(IssueCertificates, LongNamesKeepSansAndShortenCommonName) {
  CertOptions options;
  options.service = std::string(63, 's');
  options.ns = std::string(63, 'n');
  CertBundle bundle = Issue(options);
  X509Ptr leaf = ParseCert(bundle.serverCertPem);
  ASSERT_TRUE(leaf);
  EXPECT_EQ(CommonName(leaf.get()), options.service);
  const std::string host = options.service + "." + options.ns + ".svc";
  EXPECT_EQ(X509_check_host(leaf.get(), host.c_str(), host.size(), 0, nullptr), 1);
}

TEST(IssueCertificates, RejectsInvalidOptionsWithReason) {
  const std::string label =
      "must be an RFC 1123 label (lowercase letters, digits and '-', starting and ending with a "
      "letter or digit, at most 63 characters), got ";
  struct Case {
    std::string service, ns;
    int days;
    std::vector<std::string> extraHosts;
    std::string want;
  } cases[] = {
      {"", "ns", 1, {}, "--service " + label + R"("")"},
      {"Gpugate", "ns", 1, {}, "--service " + label + R"("Gpugate")"},
      {"gpu_gate", "ns", 1, {}, "--service " + label + R"("gpu_gate")"},
      {"-gpugate", "ns", 1, {}, "--service " + label + R"("-gpugate")"},
      {"gpugate.x", "ns", 1, {}, "--service " + label + R"("gpugate.x")"},
      {std::string(64, 'a'), "ns", 1, {}, "--service " + label + '"' + std::string(64, 'a') + '"'},
      {"gpugate", "", 1, {}, "--namespace " + label + R"("")"},
      {"gpugate", "ns-", 1, {}, "--namespace " + label + R"("ns-")"},
      {"gpugate", "ns", 0, {}, "--days must be between 1 and 36500, got 0"},
      {"gpugate", "ns", -5, {}, "--days must be between 1 and 36500, got -5"},
      {"gpugate", "ns", 36501, {}, "--days must be between 1 and 36500, got 36501"},
      {"gpugate", "ns", 1, {""}, R"(extra host "" is neither an IP address nor a DNS name)"},
      {"gpugate", "ns", 1, {"a b"}, R"(extra host "a b" is neither an IP address nor a DNS name)"},
      {"gpugate",
       "ns",
       1,
       {"a..b"},
       R"(extra host "a..b" is neither an IP address nor a DNS name)"},
      {"gpugate",
       "ns",
       1,
       {"x,IP:1.2.3.4"},
       R"(extra host "x,IP:1.2.3.4" is neither an IP address nor a DNS name)"},
  };
  for (const Case& c : cases) {
    Result<CertBundle> bundle = IssueCertificates({c.service, c.ns, c.days, c.extraHosts});
    ASSERT_FALSE(bundle.has_value()) << c.want;
    EXPECT_EQ(bundle.error().message, c.want);
  }
}

// Verifies `leaf` against `ca` as a TLS server verifies a caller: the chain and the client purpose.
int VerifyClientCert(X509* ca, X509* leaf) {
  StorePtr store(X509_STORE_new());
  StoreCtxPtr ctx(X509_STORE_CTX_new());
  X509_STORE_add_cert(store.get(), ca);
  X509_STORE_CTX_init(ctx.get(), store.get(), leaf, nullptr);
  X509_STORE_CTX_set_purpose(ctx.get(), X509_PURPOSE_SSL_CLIENT);
  X509_verify_cert(ctx.get());
  return X509_STORE_CTX_get_error(ctx.get());
}

TEST(IssueCertificates, ClientCertOnlyWhenAskedAndOnlyForClientAuth) {
  EXPECT_EQ(Issue().clientCertPem, "");
  EXPECT_EQ(Issue().clientKeyPem, "");

  CertOptions options;
  options.clientName = "kube-apiserver";
  CertBundle bundle = Issue(options);
  X509Ptr ca = ParseCert(bundle.caCertPem);
  X509Ptr client = ParseCert(bundle.clientCertPem);
  X509Ptr server = ParseCert(bundle.serverCertPem);
  PkeyPtr key = ParseKey(bundle.clientKeyPem);
  ASSERT_TRUE(ca && client && server && key);
  EXPECT_EQ(CommonName(client.get()), "kube-apiserver");
  EXPECT_EQ(X509_check_ca(client.get()), 0);
  EXPECT_EQ(X509_get_key_usage(client.get()), uint32_t{KU_DIGITAL_SIGNATURE});
  EXPECT_EQ(X509_get_extended_key_usage(client.get()), uint32_t{XKU_SSL_CLIENT});
  EXPECT_EQ(X509_check_private_key(client.get(), key.get()), 1);
  EXPECT_EQ(VerifyClientCert(ca.get(), client.get()), X509_V_OK);
  // Each certificate serves its own side only: the purposes keep them apart.
  EXPECT_EQ(VerifyServerCert(ca.get(), client.get()), X509_V_ERR_INVALID_PURPOSE);
  EXPECT_EQ(VerifyClientCert(ca.get(), server.get()), X509_V_ERR_INVALID_PURPOSE);
  EXPECT_NE(EVP_PKEY_eq(X509_get0_pubkey(client.get()), X509_get0_pubkey(server.get())), 1);
}

TEST(IssueCertificates, RejectsClientNamesThatCannotBeACommonName) {
  for (std::string name : {std::string(65, 'c'), std::string("a\nb"), std::string("caf\xc3\xa9")}) {
    CertOptions options;
    options.clientName = name;
    Result<CertBundle> bundle = IssueCertificates(options);
    ASSERT_FALSE(bundle.has_value()) << name;
    EXPECT_EQ(bundle.error().message,
              "--client must be 1 to 64 printable ASCII characters, got \"" + name + "\"");
  }
  CertOptions longest;
  longest.clientName = std::string(64, 'c');
  EXPECT_TRUE(IssueCertificates(longest).has_value());
}

// Sets the process umask for one test and restores it; tests run on one thread.
class ScopedUmask {
 public:
  explicit ScopedUmask(mode_t mask) : saved_(umask(mask)) {}
  ~ScopedUmask() { umask(saved_); }

 private:
  mode_t saved_;
};

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

mode_t FileMode(const fs::path& path) {
  struct stat st = {};
  EXPECT_EQ(stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

TEST(WriteBundle, CreatesDirectoryAndFilesWithModes) {
  ScopedUmask noMask(0);  // proves the modes come from creation, not from the umask
  gpugate::testing::TempDir scratch("gpugate-certs-");
  fs::path root = scratch.path();
  fs::path dir = root / "nested" / "out";
  CertBundle bundle = Issue();
  ASSERT_TRUE(WriteBundle(bundle, dir.string()).has_value());
  EXPECT_EQ(ReadFile(dir / "ca.crt"), bundle.caCertPem);
  EXPECT_EQ(ReadFile(dir / "tls.crt"), bundle.serverCertPem);
  EXPECT_EQ(ReadFile(dir / "tls.key"), bundle.serverKeyPem);
  EXPECT_EQ(FileMode(dir / "ca.crt"), 0644u);
  EXPECT_EQ(FileMode(dir / "tls.crt"), 0644u);
  EXPECT_EQ(FileMode(dir / "tls.key"), 0600u);
}

TEST(WriteBundle, WritesClientPairOnlyWhenIssued) {
  ScopedUmask noMask(0);
  gpugate::testing::TempDir scratch("gpugate-certs-");
  fs::path dir = scratch.path();
  ASSERT_TRUE(WriteBundle(Issue(), dir.string()).has_value());
  EXPECT_FALSE(fs::exists(dir / "client.crt"));
  EXPECT_FALSE(fs::exists(dir / "client.key"));
  CertOptions options;
  options.clientName = "kube-apiserver";
  CertBundle bundle = Issue(options);
  ASSERT_TRUE(WriteBundle(bundle, dir.string()).has_value());
  EXPECT_EQ(ReadFile(dir / "client.crt"), bundle.clientCertPem);
  EXPECT_EQ(ReadFile(dir / "client.key"), bundle.clientKeyPem);
  EXPECT_EQ(FileMode(dir / "client.crt"), 0644u);
  EXPECT_EQ(FileMode(dir / "client.key"), 0600u);
}

TEST(WriteBundle, ReplacesExistingFilesAndLeavesNoTemporaries) {
  gpugate::testing::TempDir scratch("gpugate-certs-");
  fs::path dir = scratch.path();
  ASSERT_TRUE(WriteBundle(Issue(), dir.string()).has_value());
  fs::permissions(dir / "tls.key", fs::perms::owner_read | fs::perms::others_read);
  CertBundle second = Issue();
  ASSERT_TRUE(WriteBundle(second, dir.string()).has_value());
  EXPECT_EQ(ReadFile(dir / "tls.key"), second.serverKeyPem);
  EXPECT_EQ(FileMode(dir / "tls.key"), 0600u);
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.push_back(entry.path().filename());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"ca.crt", "tls.crt", "tls.key"}));
}

TEST(WriteBundle, FailsWhenPathIsAFile) {
  gpugate::testing::TempDir scratch("gpugate-certs-");
  fs::path root = scratch.path();
  fs::path file = root / "occupied";
  std::ofstream(file) << "x";
  Status status = WriteBundle(Issue(), file.string());
  ASSERT_FALSE(status.has_value());
  EXPECT_TRUE(status.error().message.starts_with("creating directory " + file.string() + ": "))
      << status.error().message;
  EXPECT_FALSE(WriteBundle(Issue(), "").has_value());
}

TEST(CaBundle, IsUnbrokenBase64OfCaPem) {
  CertBundle bundle = Issue();
  std::string encoded = CaBundle(bundle);
  EXPECT_EQ(encoded.find('\n'), std::string::npos);
  std::string decoded(encoded.size(), '\0');
  int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(decoded.data()),
                          reinterpret_cast<const unsigned char*>(encoded.data()),
                          static_cast<int>(encoded.size()));
  ASSERT_GT(n, 0);
  // EVP_DecodeBlock counts the bytes that '=' padding stands for; drop them.
  size_t padding = encoded.size() - encoded.find_last_not_of('=') - 1;
  decoded.resize(static_cast<size_t>(n) - padding);
  EXPECT_EQ(decoded, bundle.caCertPem);
}

// Runs a TLS handshake over an in-memory BIO pair: a server presenting the bundle's certificate
// and key, and a client that trusts only the bundle's CA and expects `host`. Returns the
// client's verification result, or -1 if the handshake failed for another reason.
long HandshakeVerifyResult(const CertBundle& bundle, const char* host) {
  SslCtxPtr serverCtx(SSL_CTX_new(TLS_server_method()));
  SslCtxPtr clientCtx(SSL_CTX_new(TLS_client_method()));
  X509Ptr cert = ParseCert(bundle.serverCertPem), ca = ParseCert(bundle.caCertPem);
  PkeyPtr key = ParseKey(bundle.serverKeyPem);
  if (SSL_CTX_use_certificate(serverCtx.get(), cert.get()) != 1 ||
      SSL_CTX_use_PrivateKey(serverCtx.get(), key.get()) != 1 ||
      X509_STORE_add_cert(SSL_CTX_get_cert_store(clientCtx.get()), ca.get()) != 1) {
    return -1;
  }
  SSL_CTX_set_verify(clientCtx.get(), SSL_VERIFY_PEER, nullptr);
  SslPtr server(SSL_new(serverCtx.get())), client(SSL_new(clientCtx.get()));
  BIO *clientBio = nullptr, *serverBio = nullptr;
  BIO_new_bio_pair(&clientBio, 0, &serverBio, 0);
  SSL_set_bio(client.get(), clientBio, clientBio);
  SSL_set_bio(server.get(), serverBio, serverBio);
  SSL_set1_host(client.get(), host);
  SSL_set_connect_state(client.get());
  SSL_set_accept_state(server.get());
  for (int round = 0; round < 20; ++round) {
    int c = SSL_do_handshake(client.get()), s = SSL_do_handshake(server.get());
    if (c == 1 && s == 1) return SSL_get_verify_result(client.get());
    int ce = SSL_get_error(client.get(), c);
    if (c != 1 && ce != SSL_ERROR_WANT_READ && ce != SSL_ERROR_WANT_WRITE) break;
  }
  long result = SSL_get_verify_result(client.get());
  ERR_clear_error();
  return result == X509_V_OK ? -1 : result;
}

TEST(CertificatesTls, ClientTrustingCaCompletesHandshakeWithServiceHost) {
  CertBundle bundle = Issue();
  EXPECT_EQ(HandshakeVerifyResult(bundle, kServiceHost), X509_V_OK);
  EXPECT_EQ(HandshakeVerifyResult(bundle, "wrong.example.com"), X509_V_ERR_HOSTNAME_MISMATCH);
}

}  // namespace
}  // namespace gpugate::certs
