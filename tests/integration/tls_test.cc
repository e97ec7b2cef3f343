// Certificate rotation and mutual TLS through the real `gpugate serve` over real TLS: the
// serving pair replaced on disk the way the kubelet updates a mounted Secret while a kept-alive
// connection keeps reviewing, and callers with no certificate, a stranger's, and the
// apiserver's.
#include <gtest/gtest.h>
#include <httplib.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <atomic>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "gpugate_process.h"
#include "review_builder.h"
#include "support/eventually.h"

namespace gpugate::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr auto kDeadline = std::chrono::seconds(15);  // reloads come every 100 ms

// `gpugate certs` into `dir`: a fresh CA, a serving pair for 127.0.0.1 and, with `client`, a
// client pair (client.crt, client.key) from the same CA.
void MakeCerts(const std::string& dir, const std::string& client = "") {
  std::vector<std::string> args = {"certs", "--out", dir, "--host", "127.0.0.1"};
  if (!client.empty()) args.insert(args.end(), {"--client", client});
  Exit made = RunGpugate(args);
  ASSERT_EQ(made.code, 0) << made.output;
}

// A client that trusts only `caFile` for the server and presents `certFile` when given.
std::unique_ptr<httplib::SSLClient> ClientOf(int port, const std::string& caFile,
                                             const std::string& certFile = "",
                                             const std::string& keyFile = "") {
  auto client = certFile.empty()
                    ? std::make_unique<httplib::SSLClient>("127.0.0.1", port)
                    : std::make_unique<httplib::SSLClient>("127.0.0.1", port, certFile, keyFile);
  client->set_ca_cert_path(caFile.c_str());
  client->enable_server_certificate_verification(true);
  client->set_connection_timeout(5, 0);
  client->set_read_timeout(10, 0);
  return client;
}

std::string Describe(const httplib::Result& res) {
  return res ? "status " + std::to_string(res->status) + ": " + res->body
             : "no answer: " + httplib::to_string(res.error());
}

// The serving certificate's notAfter in Unix seconds, as the metrics gauge reports it.
int64_t NotAfter(const std::string& certFile) {
  std::unique_ptr<FILE, decltype(&fclose)> f(fopen(certFile.c_str(), "r"), fclose);
  std::unique_ptr<X509, decltype(&X509_free)> cert(
      f ? PEM_read_X509(f.get(), nullptr, nullptr, nullptr) : nullptr, X509_free);
  std::tm tm{};
  if (!cert || ASN1_TIME_to_tm(X509_get0_notAfter(cert.get()), &tm) != 1) return -1;
  return timegm(&tm);
}

// The serving files as the kubelet lays out a mounted Secret: tls.crt and tls.key are symlinks
// through `..data`, itself a symlink to a timestamped directory. Publish swaps `..data` to a new
// directory with one rename, so a reader sees the old pair or the new one, never a mix.
class MountedSecret {
 public:
  explicit MountedSecret(const TempDir& dir) : root_(dir.path()) {}
  std::string CertFile() const { return root_ + "/tls.crt"; }
  std::string KeyFile() const { return root_ + "/tls.key"; }

  void Publish(const std::string& cert, const std::string& key) {
    const std::string version = "..version_" + std::to_string(++versions_);
    fs::create_directory(root_ + "/" + version);
    std::ofstream(root_ + "/" + version + "/tls.crt") << cert;
    std::ofstream(root_ + "/" + version + "/tls.key") << key;
    fs::create_symlink(version, root_ + "/..data_tmp");
    fs::rename(root_ + "/..data_tmp", root_ + "/..data");
    if (versions_ == 1) {
      fs::create_symlink("..data/tls.crt", CertFile());
      fs::create_symlink("..data/tls.key", KeyFile());
    } else {
      fs::remove_all(root_ + "/..version_" + std::to_string(versions_ - 1));
    }
  }

 private:
  std::string root_;
  int versions_ = 0;
};

// One kept-alive connection reviewing in a loop on its own thread until stopped. Its client
// trusts only the CA the server started with, so after a rotation any reconnection would fail
// verification: zero failures means the one connection stayed up and kept being answered.
class ReviewLoop {
 public:
  ReviewLoop(int port, const std::string& caFile) : client_(ClientOf(port, caFile)) {
    client_->set_keep_alive(true);
    client_->set_tcp_nodelay(true);  // else each POST waits out a delayed ACK (40 ms)
    body_ = MakeReview(GpuPod("steady", json::array({{{"nvidia.com/gpu", "1"}}}))).dump();
    thread_ = std::thread([this] { Run(); });
  }
  ~ReviewLoop() { Stop(); }

  void Stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  int ok() const { return ok_; }
  int failed() const { return failed_; }
  std::string firstFailure() {
    std::lock_guard lock(mu_);
    return firstFailure_;
  }
  // Waits until `n` more reviews have been answered than when called.
  bool AnswersMore(int n) {
    int target = ok_ + n;
    return Eventually([&] { return ok_ >= target || failed_ > 0; }, kDeadline) && failed_ == 0;
  }

 private:
  void Run() {
    while (!stop_) {
      auto res = client_->Post("/validate", body_, "application/json");
      if (res && res->status == 200 && json::parse(res->body)["response"]["allowed"] == true) {
        ++ok_;
      } else {
        ++failed_;
        std::lock_guard lock(mu_);
        if (firstFailure_.empty()) firstFailure_ = Describe(res);
      }
      // Paced, so the connection stays far below the server's 10,000 requests per connection
      // (after which it would close it and the client would have to reconnect).
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }

  std::unique_ptr<httplib::SSLClient> client_;
  std::string body_;
  std::atomic<bool> stop_{false};
  std::atomic<int> ok_{0};
  std::atomic<int> failed_{0};
  std::mutex mu_;
  std::string firstFailure_;  // guarded by mu_
  std::thread thread_;
};

bool HasLine(const std::string& text, const std::string& line) {
  return text.find(line + "\n") != std::string::npos;
}

TEST(TlsRotation, NewConnectionsGetTheNewPairWhileALiveOneKeepsWorking) {
  TempDir oldCerts, newCerts, mount, config;
  MakeCerts(oldCerts.path());
  MakeCerts(newCerts.path());
  MountedSecret secret(mount);
  secret.Publish(ReadFile(oldCerts.File("tls.crt")), ReadFile(oldCerts.File("tls.key")));
  config.Write("gpugate.yaml", "tls:\n  reloadInterval: 100ms\n");
  GpugateServer server({"--config", config.File("gpugate.yaml"), "--tls-cert", secret.CertFile(),
                        "--tls-key", secret.KeyFile()});
  const std::string oldCa = oldCerts.File("ca.crt"), newCa = newCerts.File("ca.crt");
  auto healthzTrusting = [&](const std::string& ca) {
    auto res = ClientOf(server.port(), ca)->Get("/healthz");
    return res && res->status == 200;
  };
  ASSERT_TRUE(healthzTrusting(oldCa));
  ASSERT_FALSE(healthzTrusting(newCa));

  ReviewLoop loop(server.port(), oldCa);
  ASSERT_TRUE(loop.AnswersMore(20)) << loop.firstFailure();

  // Rotation to a pair from another CA, as cert-manager reissuing with a new CA would.
  secret.Publish(ReadFile(newCerts.File("tls.crt")), ReadFile(newCerts.File("tls.key")));
  ASSERT_TRUE(Eventually([&] { return healthzTrusting(newCa); }, kDeadline))
      << "the new pair was not served within " << kDeadline.count() << " s; logs:\n"
      << server.Logs();
  auto stale = ClientOf(server.port(), oldCa)->Get("/healthz");
  EXPECT_FALSE(stale);
  EXPECT_EQ(stale.error(), httplib::Error::SSLServerVerification);
  EXPECT_TRUE(loop.AnswersMore(20)) << loop.firstFailure();
  EXPECT_TRUE(server.WaitForLog("\"msg\":\"tls files reloaded\"", std::chrono::seconds(1)));

  // A broken pair: the certificate is garbage. The server keeps serving the new pair and says so.
  secret.Publish("this is not a certificate\n", ReadFile(newCerts.File("tls.key")));
  ASSERT_TRUE(server.WaitForLog("tls files rejected", kDeadline)) << server.Logs();
  EXPECT_NE(server.Logs().find("no PEM certificate found"), std::string::npos) << server.Logs();
  EXPECT_TRUE(healthzTrusting(newCa));
  EXPECT_TRUE(loop.AnswersMore(20)) << loop.firstFailure();
  auto metrics = ClientOf(server.port(), newCa)->Get("/metrics");
  ASSERT_TRUE(metrics) << Describe(metrics);
  for (std::string line :
       {std::string(R"(gpugate_tls_reload_total{files="serving",result="ok"} 1)"),
        std::string(R"(gpugate_tls_reload_total{files="serving",result="error"} 1)"),
        std::string(R"(gpugate_tls_files_rejected{files="serving"} 1)"),
        "gpugate_tls_certificate_not_after_seconds{files=\"serving\"} " +
            std::to_string(NotAfter(newCerts.File("tls.crt")))}) {
    EXPECT_TRUE(HasLine(metrics->body, line)) << line << "\n" << metrics->body;
  }

  loop.Stop();
  RecordProperty("reviewsOnTheLiveConnection", loop.ok());  // for docs/reliability.md
  EXPECT_EQ(loop.failed(), 0) << loop.firstFailure();
  EXPECT_GE(loop.ok(), 60);
}

// Mutual TLS with the default policy: every path but the probes needs a certificate from the
// client CA. Set by flag, as `--tls-client-ca`.
class ClientAuthTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dirs_ = new Dirs;
    MakeCerts(dirs_->apiserver.path(), "kube-apiserver");
    MakeCerts(dirs_->stranger.path(), "intruder");
    server_ = new GpugateServer({"--tls-client-ca", dirs_->apiserver.File("ca.crt")});
  }
  static void TearDownTestSuite() {
    delete server_;
    delete dirs_;
  }

  static std::unique_ptr<httplib::SSLClient> Anonymous() {
    return ClientOf(server_->port(), server_->caFile());
  }
  static std::unique_ptr<httplib::SSLClient> Apiserver() {
    return ClientOf(server_->port(), server_->caFile(), dirs_->apiserver.File("client.crt"),
                    dirs_->apiserver.File("client.key"));
  }
  static std::unique_ptr<httplib::SSLClient> Stranger() {
    return ClientOf(server_->port(), server_->caFile(), dirs_->stranger.File("client.crt"),
                    dirs_->stranger.File("client.key"));
  }

  struct Dirs {
    TempDir apiserver, stranger;
  };
  static Dirs* dirs_;
  static GpugateServer* server_;
};

ClientAuthTest::Dirs* ClientAuthTest::dirs_ = nullptr;
GpugateServer* ClientAuthTest::server_ = nullptr;

const std::string kReview =
    MakeReview(GpuPod("p", json::array({{{"nvidia.com/gpu", "0.5"}}}))).dump();
constexpr const char* kNeeded =
    "a client certificate signed by the CA in tls.clientCAFile is required for ";

TEST_F(ClientAuthTest, CallerWithoutCertificateGetsProbesOnly) {
  auto client = Anonymous();
  for (const char* probe : {"/healthz", "/readyz"}) {
    auto res = client->Get(probe);
    ASSERT_TRUE(res) << probe << ": " << Describe(res);
    EXPECT_EQ(res->status, 200) << probe;
  }
  for (const char* path : {"/validate", "/mutate"}) {
    auto res = client->Post(path, kReview, "application/json");
    ASSERT_TRUE(res) << path << ": " << Describe(res);
    EXPECT_EQ(res->status, 403) << path;
    EXPECT_EQ(res->body, kNeeded + std::string(path) + "; the connection presented none\n");
    EXPECT_EQ(res->get_header_value("Connection"), "close");
  }
  for (const char* path : {"/quota", "/metrics"}) {
    auto res = client->Get(path);
    ASSERT_TRUE(res) << path << ": " << Describe(res);
    EXPECT_EQ(res->status, 403) << path;
    EXPECT_EQ(res->body, kNeeded + std::string(path) + "; the connection presented none\n");
  }
}

TEST_F(ClientAuthTest, CertificateFromAnotherCaIsRefusedWithTheReason) {
  // The handshake completes; the refusal comes per request, with the verification error.
  auto client = Stranger();
  auto res = client->Post("/validate", kReview, "application/json");
  ASSERT_TRUE(res) << Describe(res);
  EXPECT_EQ(res->status, 403);
  EXPECT_EQ(res->body, kNeeded + std::string("/validate") +
                           "; the one presented was refused: unable to verify the first "
                           "certificate\n");
  auto health = client->Get("/healthz");
  ASSERT_TRUE(health) << Describe(health);
  EXPECT_EQ(health->status, 200);
}

TEST_F(ClientAuthTest, ApiserverCertificateIsAnsweredOverTls13And12) {
  for (int version : {TLS1_3_VERSION, TLS1_2_VERSION}) {
    auto client = Apiserver();
    SSL_CTX_set_max_proto_version(client->ssl_context(), version);
    auto res = client->Post("/validate", kReview, "application/json");
    ASSERT_TRUE(res) << Describe(res);
    ASSERT_EQ(res->status, 200) << res->body;
    json review = json::parse(res->body);
    EXPECT_FALSE(review["response"]["allowed"].get<bool>());
    EXPECT_EQ(review["response"]["status"]["message"].get<std::string>(),
              "spec.containers[0] \"c0\": nvidia.com/gpu limit \"0.5\" must be a whole number "
              "of GPUs; spec.containers[0] \"c0\": nvidia.com/gpu request \"0.5\" must be a "
              "whole number of GPUs");
    auto mutate = client->Post("/mutate", kReview, "application/json");
    ASSERT_TRUE(mutate) << Describe(mutate);
    EXPECT_EQ(mutate->status, 200) << mutate->body;
  }
}

TEST_F(ClientAuthTest, RefusalsAreCountedAndLogged) {
  ASSERT_TRUE(Anonymous()->Post("/validate", kReview, "application/json"));
  ASSERT_TRUE(Stranger()->Post("/validate", kReview, "application/json"));
  auto metrics = Apiserver()->Get("/metrics");
  ASSERT_TRUE(metrics) << Describe(metrics);
  ASSERT_EQ(metrics->status, 200);
  // At least one of each from this test; earlier tests in the suite add theirs.
  for (const char* prefix :
       {R"(gpugate_tls_client_refused_total{route="validate",reason="no_certificate"} )",
        R"(gpugate_tls_client_refused_total{route="validate",reason="untrusted"} )",
        R"(gpugate_http_requests_total{route="validate",code="403"} )",
        R"(gpugate_tls_reload_total{files="client_ca",result="error"} 0)"}) {
    EXPECT_NE(metrics->body.find(prefix), std::string::npos) << prefix << "\n" << metrics->body;
  }
  EXPECT_TRUE(server_->WaitForLog("\"msg\":\"client refused\"", std::chrono::seconds(2)));
}

// The policy set in the file: /metrics left open for a scraper without a certificate, and the
// client CA replaced while serving.
TEST(ClientAuthConfig, OpenMetricsAndReloadedClientCa) {
  TempDir first, second, config;
  MakeCerts(first.path(), "kube-apiserver");
  MakeCerts(second.path(), "kube-apiserver");
  const std::string caFile = config.File("client-ca.crt");
  config.Write("client-ca.crt", ReadFile(first.File("ca.crt")));
  config.Write("gpugate.yaml", "tls:\n  clientCAFile: " + caFile +
                                   "\n  openPaths: [/metrics]\n  reloadInterval: 100ms\n");
  GpugateServer server({"--config", config.File("gpugate.yaml")});
  auto reviewAs = [&](const TempDir& dir) {
    auto res =
        ClientOf(server.port(), server.caFile(), dir.File("client.crt"), dir.File("client.key"))
            ->Post("/validate", kReview, "application/json");
    return res ? res->status : -1;
  };
  auto anonymous = ClientOf(server.port(), server.caFile());
  auto metrics = anonymous->Get("/metrics");
  ASSERT_TRUE(metrics) << Describe(metrics);
  EXPECT_EQ(metrics->status, 200);
  auto quota = anonymous->Get("/quota");
  ASSERT_TRUE(quota) << Describe(quota);
  EXPECT_EQ(quota->status, 403);
  EXPECT_EQ(reviewAs(first), 200);
  EXPECT_EQ(reviewAs(second), 403);

  // Replaced by rename, as a Secret update lands.
  config.Write("client-ca.crt.new", ReadFile(second.File("ca.crt")));
  fs::rename(config.File("client-ca.crt.new"), caFile);
  ASSERT_TRUE(Eventually([&] { return reviewAs(second) == 200; }, kDeadline)) << server.Logs();
  EXPECT_EQ(reviewAs(first), 403);
}

}  // namespace
}  // namespace gpugate::testing
