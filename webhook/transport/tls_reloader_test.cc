// The reloader and the route guard over real handshakes: OpenSSL server and client in memory
// (a BIO pair), the server's context set up by TlsReloader::Install as gpugate's is.
#include "transport/tls_reloader.h"

#include <gtest/gtest.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "certs/certificates.h"
#include "support/temp_dir.h"
#include "tls/pem.h"
#include "transport/client_auth.h"

namespace gpugate::transport {
namespace {

namespace fs = std::filesystem;

using tls::SslCtxPtr;
using tls::SslPtr;

constexpr const char* kHost = "gpugate.gpugate-system.svc";

certs::CertBundle Issue(const std::string& clientName = "") {
  certs::CertOptions options;
  options.clientName = clientName;
  auto bundle = certs::IssueCertificates(options);
  EXPECT_TRUE(bundle.has_value()) << bundle.error().message;
  return bundle.value_or(certs::CertBundle{});
}

// A scratch directory whose files are replaced as kubectl cp or a careful operator would.
class Dir : public gpugate::testing::TempDir {
 public:
  Dir() : TempDir("gpugate-tls-") {}
  // Replaces `name` as an atomic rename.
  void Replace(const std::string& name, const std::string& content) const {
    std::ofstream(File(name + ".new"), std::ios::binary) << content;
    fs::rename(File(name + ".new"), File(name));
  }
};

// The serial number of the certificate a TLS client saw, in hex.
std::string Serial(X509* cert) {
  if (!cert) return "";
  BIGNUM* bn = ASN1_INTEGER_to_BN(X509_get0_serialNumber(cert), nullptr);
  char* hex = BN_bn2hex(bn);
  std::string out = hex;
  OPENSSL_free(hex);
  BN_free(bn);
  return out;
}

std::string Serial(const std::string& pem) {
  tls::BioPtr bio = tls::MemoryBio(pem);
  tls::X509Ptr cert(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
  return Serial(cert.get());
}

// One handshake against `serverCtx` by a client trusting `trustedCaPem` for kHost and, when
// `clientCertPem` is set, presenting that certificate.
struct Handshake {
  bool ok = false;
  long clientVerify = X509_V_OK;  // the client's verdict on the server's certificate
  SslPtr server;
  std::string servedSerial;  // the certificate the client received
};

Handshake Connect(SSL_CTX* serverCtx, const std::string& trustedCaPem,
                  const std::string& clientCertPem = "", const std::string& clientKeyPem = "") {
  SslCtxPtr clientCtx(SSL_CTX_new(TLS_client_method()));
  tls::BioPtr caBio = tls::MemoryBio(trustedCaPem);
  tls::X509Ptr ca(PEM_read_bio_X509(caBio.get(), nullptr, nullptr, nullptr));
  X509_STORE_add_cert(SSL_CTX_get_cert_store(clientCtx.get()), ca.get());
  SSL_CTX_set_verify(clientCtx.get(), SSL_VERIFY_PEER, nullptr);
  Handshake h;
  h.server.reset(SSL_new(serverCtx));
  SslPtr client(SSL_new(clientCtx.get()));
  if (!clientCertPem.empty()) {
    tls::BioPtr c = tls::MemoryBio(clientCertPem);
    tls::BioPtr k = tls::MemoryBio(clientKeyPem);
    tls::X509Ptr cert(PEM_read_bio_X509(c.get(), nullptr, nullptr, nullptr));
    tls::PkeyPtr key(PEM_read_bio_PrivateKey(k.get(), nullptr, nullptr, nullptr));
    EXPECT_EQ(SSL_use_certificate(client.get(), cert.get()), 1);
    EXPECT_EQ(SSL_use_PrivateKey(client.get(), key.get()), 1);
  }
  BIO *clientBio = nullptr, *serverBio = nullptr;
  BIO_new_bio_pair(&clientBio, 0, &serverBio, 0);
  SSL_set_bio(client.get(), clientBio, clientBio);
  SSL_set_bio(h.server.get(), serverBio, serverBio);
  SSL_set1_host(client.get(), kHost);
  SSL_set_connect_state(client.get());
  SSL_set_accept_state(h.server.get());
  for (int round = 0; round < 20 && !h.ok; ++round) {
    int c = SSL_do_handshake(client.get()), s = SSL_do_handshake(h.server.get());
    h.ok = c == 1 && s == 1;
    int ce = SSL_get_error(client.get(), c), se = SSL_get_error(h.server.get(), s);
    bool waiting = (ce == SSL_ERROR_WANT_READ || ce == SSL_ERROR_WANT_WRITE || c == 1) &&
                   (se == SSL_ERROR_WANT_READ || se == SSL_ERROR_WANT_WRITE || s == 1);
    if (!h.ok && !waiting) break;
  }
  h.clientVerify = SSL_get_verify_result(client.get());
  h.servedSerial = Serial(SSL_get0_peer_certificate(client.get()));
  ERR_clear_error();
  return h;
}

struct Served {
  Dir dir;
  std::unique_ptr<TlsReloader> reloader;
  SslCtxPtr ctx;
};

// A reloader over tls.crt and tls.key from `bundle` (and ca.crt from `clientCa` when set), and
// a server context it has set up.
std::unique_ptr<Served> Serve(const certs::CertBundle& bundle, const std::string& clientCa = "") {
  auto s = std::make_unique<Served>();
  s->dir.Replace("tls.crt", bundle.serverCertPem);
  s->dir.Replace("tls.key", bundle.serverKeyPem);
  TlsFiles files{.certFile = s->dir.File("tls.crt"), .keyFile = s->dir.File("tls.key")};
  if (!clientCa.empty()) {
    s->dir.Replace("ca.crt", clientCa);
    files.clientCaFile = s->dir.File("ca.crt");
  }
  auto reloader = TlsReloader::Load(files);
  EXPECT_TRUE(reloader.has_value()) << reloader.error().message;
  if (!reloader) return s;
  s->reloader = std::move(*reloader);
  s->ctx.reset(SSL_CTX_new(TLS_server_method()));
  s->reloader->Install(*s->ctx);
  return s;
}

bool Has(const std::string& text, const std::string& line) {
  return text.find(line + "\n") != std::string::npos;
}

TEST(TlsReloader, LoadNamesTheFileThatFails) {
  Dir dir;
  auto missing = TlsReloader::Load({.certFile = dir.File("tls.crt"), .keyFile = dir.File("k")});
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().message,
            "tls.certFile " + dir.File("tls.crt") + ": cannot read: No such file or directory");
  certs::CertBundle b = Issue();
  dir.Replace("tls.crt", b.serverCertPem);
  dir.Replace("tls.key", b.serverKeyPem);
  dir.Replace("bad-ca.crt", "not a CA\n");
  auto badCa = TlsReloader::Load({.certFile = dir.File("tls.crt"),
                                  .keyFile = dir.File("tls.key"),
                                  .clientCaFile = dir.File("bad-ca.crt")});
  ASSERT_FALSE(badCa.has_value());
  EXPECT_EQ(badCa.error().message,
            "tls.clientCAFile " + dir.File("bad-ca.crt") + ": no PEM certificate found");
}

TEST(TlsReloader, NewHandshakesGetAReplacedPairAndABrokenOneIsRejected) {
  certs::CertBundle first = Issue(), second = Issue();
  auto s = Serve(first);
  ASSERT_TRUE(s->reloader);
  Handshake before = Connect(s->ctx.get(), first.caCertPem);
  ASSERT_TRUE(before.ok);
  EXPECT_EQ(before.servedSerial, Serial(first.serverCertPem));

  s->reloader->Poll();  // nothing changed: nothing counted
  EXPECT_TRUE(Has(s->reloader->RenderMetrics(),
                  R"(gpugate_tls_reload_total{files="serving",result="ok"} 0)"));

  s->dir.Replace("tls.crt", second.serverCertPem);
  s->dir.Replace("tls.key", second.serverKeyPem);
  s->reloader->Poll();
  Handshake after = Connect(s->ctx.get(), second.caCertPem);
  EXPECT_TRUE(after.ok);
  EXPECT_EQ(after.servedSerial, Serial(second.serverCertPem));
  Handshake oldTrust = Connect(s->ctx.get(), first.caCertPem);
  EXPECT_FALSE(oldTrust.ok);
  EXPECT_EQ(oldTrust.clientVerify, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY);

  // A garbage certificate and, once that is fixed, a key from another pair: both rejected, each
  // counted once however often it is polled, and the second pair served throughout.
  s->dir.Replace("tls.crt", "garbage\n");
  s->reloader->Poll();
  s->reloader->Poll();
  EXPECT_EQ(Connect(s->ctx.get(), second.caCertPem).servedSerial, Serial(second.serverCertPem));
  s->dir.Replace("tls.crt", first.serverCertPem);
  s->reloader->Poll();
  EXPECT_EQ(Connect(s->ctx.get(), second.caCertPem).servedSerial, Serial(second.serverCertPem));
  std::string metrics = s->reloader->RenderMetrics();
  EXPECT_TRUE(Has(metrics, R"(gpugate_tls_reload_total{files="serving",result="ok"} 1)"))
      << metrics;
  EXPECT_TRUE(Has(metrics, R"(gpugate_tls_reload_total{files="serving",result="error"} 2)"))
      << metrics;
  EXPECT_TRUE(Has(metrics, R"(gpugate_tls_files_rejected{files="serving"} 1)")) << metrics;
  EXPECT_TRUE(Has(metrics, "gpugate_tls_certificate_not_after_seconds{files=\"serving\"} " +
                               std::to_string(s->reloader->servingPair()->notAfter)))
      << metrics;

  s->dir.Replace("tls.key", first.serverKeyPem);  // the first pair, whole again
  s->reloader->Poll();
  EXPECT_EQ(Connect(s->ctx.get(), first.caCertPem).servedSerial, Serial(first.serverCertPem));
  metrics = s->reloader->RenderMetrics();
  EXPECT_TRUE(Has(metrics, R"(gpugate_tls_reload_total{files="serving",result="ok"} 2)"))
      << metrics;
  EXPECT_TRUE(Has(metrics, R"(gpugate_tls_files_rejected{files="serving"} 0)")) << metrics;
}

// The kubelet's update of a mounted Secret: the files are symlinks through `..data`, which is
// itself a symlink, swapped by rename to a new timestamped directory; the old one is deleted.
TEST(TlsReloader, FollowsTheKubeletsSymlinkSwap) {
  certs::CertBundle first = Issue(), second = Issue();
  Dir dir;
  auto writeVersion = [&](const std::string& version, const certs::CertBundle& b) {
    fs::create_directory(dir.File(version));
    std::ofstream(dir.File(version + "/tls.crt")) << b.serverCertPem;
    std::ofstream(dir.File(version + "/tls.key")) << b.serverKeyPem;
    fs::create_symlink(version, dir.File("..data_tmp"));
    fs::rename(dir.File("..data_tmp"), dir.File("..data"));
  };
  writeVersion("..2024_01_01_00_00_00.1", first);
  fs::create_symlink("..data/tls.crt", dir.File("tls.crt"));
  fs::create_symlink("..data/tls.key", dir.File("tls.key"));
  auto reloader =
      TlsReloader::Load({.certFile = dir.File("tls.crt"), .keyFile = dir.File("tls.key")});
  ASSERT_TRUE(reloader.has_value()) << reloader.error().message;
  SslCtxPtr ctx(SSL_CTX_new(TLS_server_method()));
  (*reloader)->Install(*ctx);
  EXPECT_EQ(Connect(ctx.get(), first.caCertPem).servedSerial, Serial(first.serverCertPem));

  writeVersion("..2024_02_01_00_00_00.2", second);
  fs::remove_all(dir.File("..2024_01_01_00_00_00.1"));
  (*reloader)->Poll();
  EXPECT_EQ(Connect(ctx.get(), second.caCertPem).servedSerial, Serial(second.serverCertPem));
}

TEST(ClientAuth, ProbesAnswerAnyoneAndEverythingElseOnlyVerifiedCallers) {
  certs::CertBundle server = Issue(), clients = Issue("kube-apiserver"), other = Issue("intruder");
  auto s = Serve(server, clients.caCertPem);
  ASSERT_TRUE(s->reloader);
  ClientAuth auth({.required = true, .openPaths = {"/metrics"}});
  const std::string needed =
      "a client certificate signed by the CA in tls.clientCAFile is required for /validate";

  Handshake trusted =
      Connect(s->ctx.get(), server.caCertPem, clients.clientCertPem, clients.clientKeyPem);
  ASSERT_TRUE(trusted.ok);
  Handshake none = Connect(s->ctx.get(), server.caCertPem);
  ASSERT_TRUE(none.ok);  // asked for a certificate, not required: probes must still work
  Handshake stranger =
      Connect(s->ctx.get(), server.caCertPem, other.clientCertPem, other.clientKeyPem);
  ASSERT_TRUE(stranger.ok);  // completed, and refused per request with the reason
  // gpugate's own serving certificate chains to a trusted CA but is not for clients.
  auto s2 = Serve(server, server.caCertPem);
  Handshake wrongPurpose =
      Connect(s2->ctx.get(), server.caCertPem, server.serverCertPem, server.serverKeyPem);
  ASSERT_TRUE(wrongPurpose.ok);

  struct Case {
    const char* name;
    const SSL* ssl;
    std::string path, want;
  } cases[] = {
      {"trusted /validate", trusted.server.get(), "/validate", ""},
      {"trusted /quota", trusted.server.get(), "/quota", ""},
      {"none /healthz", none.server.get(), "/healthz", ""},
      {"none /readyz", none.server.get(), "/readyz", ""},
      {"none /metrics (open)", none.server.get(), "/metrics", ""},
      {"none /validate", none.server.get(), "/validate",
       needed + "; the connection presented none"},
      {"none /mutate", none.server.get(), "/mutate",
       "a client certificate signed by the CA in tls.clientCAFile is required for /mutate; the "
       "connection presented none"},
      {"none /quota", none.server.get(), "/quota",
       "a client certificate signed by the CA in tls.clientCAFile is required for /quota; the "
       "connection presented none"},
      {"none, unknown path", none.server.get(), "/nope",
       "a client certificate signed by the CA in tls.clientCAFile is required for /nope; the "
       "connection presented none"},
      {"stranger /validate", stranger.server.get(), "/validate",
       needed + "; the one presented was refused: unable to verify the first certificate"},
      {"stranger /healthz", stranger.server.get(), "/healthz", ""},
      {"server cert /validate", wrongPurpose.server.get(), "/validate",
       needed + "; the one presented was refused: unsuitable certificate purpose"},
  };
  for (const Case& c : cases) EXPECT_EQ(auth.Refusal(c.path, c.ssl), c.want) << c.name;

  ClientAuth off({.required = false});
  EXPECT_EQ(off.Refusal("/validate", none.server.get()), "");
  EXPECT_EQ(off.RenderMetrics(), "");
}

TEST(ClientAuth, ARotatedClientCaDecidesNewHandshakes) {
  certs::CertBundle server = Issue(), oldClients = Issue("old"), newClients = Issue("new");
  auto s = Serve(server, oldClients.caCertPem);
  ASSERT_TRUE(s->reloader);
  ClientAuth auth({.required = true});
  Handshake old =
      Connect(s->ctx.get(), server.caCertPem, oldClients.clientCertPem, oldClients.clientKeyPem);
  EXPECT_EQ(auth.Refusal("/validate", old.server.get()), "");

  s->dir.Replace("ca.crt", newClients.caCertPem);
  s->reloader->Poll();
  Handshake oldAgain =
      Connect(s->ctx.get(), server.caCertPem, oldClients.clientCertPem, oldClients.clientKeyPem);
  Handshake fresh =
      Connect(s->ctx.get(), server.caCertPem, newClients.clientCertPem, newClients.clientKeyPem);
  EXPECT_NE(auth.Refusal("/validate", oldAgain.server.get()), "");
  EXPECT_EQ(auth.Refusal("/validate", fresh.server.get()), "");
  // A connection verified before the change keeps its verdict for its life.
  EXPECT_EQ(auth.Refusal("/validate", old.server.get()), "");
  std::string metrics = s->reloader->RenderMetrics();
  EXPECT_TRUE(Has(metrics, R"(gpugate_tls_reload_total{files="client_ca",result="ok"} 1)"))
      << metrics;
}

}  // namespace
}  // namespace gpugate::transport
