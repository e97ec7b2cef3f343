// `gpugate quota` and `kubectl gpuquota` against the real server over TLS: what an operator sees.
#include <gtest/gtest.h>
#include <httplib.h>

#include <cstdlib>
#include <filesystem>
#include <thread>
#include <utility>

#include "gpugate_process.h"
#include "kubectl.h"
#include "review_builder.h"
#include "test_paths.h"

namespace gpugate::testing {
namespace {

using nlohmann::json;

constexpr const char* kTable =
    "NAMESPACE   RESOURCE         USED   HARD   USE%\n"
    "team-a      nvidia.com/gpu   2      4      50%    [##########..........]\n"
    "TOTAL       nvidia.com/gpu   2      4      50%    [##########..........]\n";

constexpr const char* kJson =
    R"({"namespaces":[{"namespace":"team-a","resources":{"nvidia.com/gpu":{"used":2,"hard":4}}}]})"
    "\n";

constexpr const char* kConfig =
    "quota:\n"
    "  namespaces:\n"
    "    team-a: {nvidia.com/gpu: 4}\n";

// Has the server behind `client` admit a pod in team-a holding 2 GPUs.
void AdmitTwoGpus(httplib::SSLClient& client) {
  json review = MakeReview(GpuPod("train", json::array({{{"nvidia.com/gpu", "2"}}})));
  auto res = client.Post("/validate", review.dump(), "application/json");
  ASSERT_TRUE(res) << httplib::to_string(res.error());
  ASSERT_EQ(res->status, 200) << res->body;
  ASSERT_TRUE(json::parse(res->body)["response"]["allowed"].get<bool>()) << res->body;
}

// A server with a 4-GPU limit on team-a, which has admitted one pod holding 2.
class QuotaCliTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    dir_->Write("gpugate.yaml", kConfig);
    server_ = new GpugateServer({"--config", dir_->File("gpugate.yaml")});
    AdmitTwoGpus(*server_->Client());
  }
  static void TearDownTestSuite() {
    delete server_;
    delete dir_;
    server_ = nullptr;
    dir_ = nullptr;
  }

  static std::string Url() { return "https://127.0.0.1:" + std::to_string(server_->port()); }

  static TempDir* dir_;
  static GpugateServer* server_;
};

TempDir* QuotaCliTest::dir_ = nullptr;
GpugateServer* QuotaCliTest::server_ = nullptr;

TEST_F(QuotaCliTest, JsonIsTheServersReport) {
  Exit run = RunGpugate({"quota", "--server", Url(), "--cacert", server_->caFile(), "-o", "json"});
  EXPECT_EQ(run.code, 0) << run.output;
  EXPECT_EQ(run.output, kJson);
}

TEST_F(QuotaCliTest, TableIsTheDefaultAndNamespaceFilters) {
  struct Case {
    std::vector<std::string> extra;
    std::string want;
  } cases[] = {
      {{"-o", "table"}, kTable},
      {{}, kTable},
      {{"--output=table", "--namespace", "team-a"}, kTable},
      {{"-n", "team-b"}, "NAMESPACE   RESOURCE   USED   HARD   USE%\nNo GPU usage or limits.\n"},
      {{"-n", "team-b", "-ojson"}, "{\"namespaces\":[]}\n"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> args = {"quota", "--server", Url(), "--cacert", server_->caFile()};
    args.insert(args.end(), c.extra.begin(), c.extra.end());
    Exit run = RunGpugate(args);
    EXPECT_EQ(run.code, 0) << run.output;
    EXPECT_EQ(run.output, c.want) << ::testing::PrintToString(c.extra);
  }
}

TEST_F(QuotaCliTest, InsecureSkipsVerification) {
  Exit run = RunGpugate({"quota", "--server", Url() + "/", "--insecure-skip-tls-verify"});
  EXPECT_EQ(run.code, 0) << run.output;
  EXPECT_EQ(run.output, kTable);
}

// Through `kubectl port-forward` the address is 127.0.0.1 but the certificate names the Service.
TEST_F(QuotaCliTest, TlsServerNameVerifiesAnotherName) {
  Exit run = RunGpugate({"quota", "--server", Url(), "--cacert", server_->caFile(),
                         "--tls-server-name", "gpugate.gpugate-system.svc"});
  EXPECT_EQ(run.code, 0) << run.output;
  EXPECT_EQ(run.output, kTable);

  Exit wrong = RunGpugate({"quota", "--server", Url(), "--cacert", server_->caFile(),
                           "--tls-server-name", "other.example"});
  EXPECT_EQ(wrong.code, 1) << wrong.output;
  EXPECT_EQ(wrong.output, "gpugate quota: " + Url() +
                              "/quota: cannot verify the server: its certificate is not for "
                              "other.example (pass --tls-server-name with a name it carries)\n");
}

TEST_F(QuotaCliTest, RunsAsKubectlPlugin) {
  const std::filesystem::path bin = std::filesystem::path(GPUGATE_BINARY).parent_path();
  const std::string link = (bin / "kubectl-gpuquota").string();
  ASSERT_TRUE(std::filesystem::is_symlink(link)) << link;

  // The link itself: argv[0] selects the quota command.
  Exit direct = RunProgram(link, {"--server", Url(), "--cacert", server_->caFile()});
  EXPECT_EQ(direct.code, 0) << direct.output;
  EXPECT_EQ(direct.output, kTable);

  // Through kubectl (the one the manifest tests use, kubectl.h), which finds kubectl-* programs
  // on PATH.
  const Result<Kubectl>& kubectl = UsableKubectl();
  if (!kubectl) GTEST_SKIP() << kubectl.error().message;
  const char* path = std::getenv("PATH");
  std::string searchPath = bin.string() + ":" + (path ? path : "/usr/local/bin:/usr/bin:/bin");
  Exit plugin = RunProgram("/usr/bin/env", {"PATH=" + searchPath, kubectl->path, "gpuquota",
                                            "--server", Url(), "--cacert", server_->caFile()});
  EXPECT_EQ(plugin.code, 0) << plugin.output;
  EXPECT_EQ(plugin.output, kTable);

  Exit help =
      RunProgram("/usr/bin/env", {"PATH=" + searchPath, kubectl->path, "gpuquota", "--help"});
  EXPECT_EQ(help.code, 0) << help.output;
  EXPECT_TRUE(help.output.starts_with("Usage: kubectl gpuquota [--server URL]")) << help.output;
}

TEST_F(QuotaCliTest, UsageErrorsExitTwo) {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  } cases[] = {
      {{"--cacert", "ca.crt", "--insecure-skip-tls-verify"},
       "gpugate quota: --cacert and --insecure-skip-tls-verify exclude each other\n"},
      {{"-o", "yaml"}, "gpugate quota: --output must be table or json, got \"yaml\"\n"},
      {{"--server", "http://127.0.0.1:8443"},
       "gpugate quota: --server must be an https:// URL, got \"http://127.0.0.1:8443\"\n"},
      {{"--bogus"}, "gpugate quota: unknown flag --bogus\n"},
      {{"team-a"}, "gpugate quota: unexpected argument \"team-a\"\n"},
      {{"--cert", "client.crt"}, "gpugate quota: --cert needs --key\n"},
      {{"--key", "client.key"}, "gpugate quota: --key needs --cert\n"},
      {{"--kubeconfig", "kubeconfig", "--cert", "client.crt", "--key", "client.key"},
       "gpugate quota: --kubeconfig reads the cluster directly and does not combine with "
       "--cert\n"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> args = {"quota"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    Exit run = RunGpugate(args);
    EXPECT_EQ(run.code, 2) << run.output;
    EXPECT_TRUE(run.output.starts_with(c.message)) << run.output;
    EXPECT_NE(run.output.find("Usage: gpugate quota"), std::string::npos) << run.output;
  }
}

TEST_F(QuotaCliTest, RunTimeErrorsExitOneWithTheReason) {
  TempDir other;
  Exit certs = RunGpugate({"certs", "--out", other.path(), "--host", "127.0.0.1"});
  ASSERT_EQ(certs.code, 0) << certs.output;
  struct Case {
    std::vector<std::string> args;
    std::string message;
  } cases[] = {
      {{"--server", Url(), "--cacert", other.File("ca.crt")},
       "gpugate quota: " + Url() +
           "/quota: cannot verify the server: unable to get local issuer certificate "
           "(pass --cacert with the CA that signed its certificate)\n"},
      {{"--server", Url()},  // system CAs do not know the test CA
       "gpugate quota: " + Url() +
           "/quota: cannot verify the server: unable to get local issuer certificate "
           "(pass --cacert with the CA that signed its certificate)\n"},
      {{"--server", Url(), "--cacert", other.File("missing.crt")},
       "gpugate quota: cannot read --cacert " + other.File("missing.crt") + "\n"},
      {{"--server", Url() + "/prefix", "--cacert", server_->caFile()},
       "gpugate quota: " + Url() +
           "/prefix/quota: HTTP 404 Not Found: gpugate serves /validate, /mutate, /healthz, "
           "/readyz, /metrics, /quota and /usage\n"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> args = {"quota"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    Exit run = RunGpugate(args);
    EXPECT_EQ(run.code, 1) << run.output;
    EXPECT_EQ(run.output, c.message);
  }
}

// The same server with mutual TLS (--tls-client-ca): /quota answers only a caller whose
// certificate the client CA signed, here one `gpugate certs --client` made for an operator.
class QuotaCliClientCertTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dirs_ = new Dirs();
    for (const auto& [dir, name] :
         {std::pair{&dirs_->operatorCa, "operator"}, std::pair{&dirs_->otherCa, "intruder"}}) {
      Exit made =
          RunGpugate({"certs", "--out", dir->path(), "--host", "127.0.0.1", "--client", name});
      ASSERT_EQ(made.code, 0) << made.output;
    }
    dirs_->config.Write("gpugate.yaml", kConfig);
    server_ = new GpugateServer({"--config", dirs_->config.File("gpugate.yaml"), "--tls-client-ca",
                                 dirs_->operatorCa.File("ca.crt")});
    httplib::SSLClient client("127.0.0.1", server_->port(), dirs_->operatorCa.File("client.crt"),
                              dirs_->operatorCa.File("client.key"));
    client.set_ca_cert_path(server_->caFile().c_str());
    client.enable_server_certificate_verification(true);
    AdmitTwoGpus(client);
  }
  static void TearDownTestSuite() {
    delete server_;
    delete dirs_;
    server_ = nullptr;
    dirs_ = nullptr;
  }

  static std::string Url() { return "https://127.0.0.1:" + std::to_string(server_->port()); }

  struct Dirs {
    TempDir operatorCa, otherCa, config;
  };
  static Dirs* dirs_;
  static GpugateServer* server_;
};

QuotaCliClientCertTest::Dirs* QuotaCliClientCertTest::dirs_ = nullptr;
GpugateServer* QuotaCliClientCertTest::server_ = nullptr;

TEST_F(QuotaCliClientCertTest, OnlyACertificateFromTheClientCaReadsTheReport) {
  const std::string cert = dirs_->operatorCa.File("client.crt");
  const std::string key = dirs_->operatorCa.File("client.key");
  const std::string otherCert = dirs_->otherCa.File("client.crt");
  const std::string otherKey = dirs_->otherCa.File("client.key");
  const std::string missing = dirs_->operatorCa.File("missing.crt");
  const std::string refused =
      "gpugate quota: " + Url() +
      "/quota: HTTP 403 Forbidden: a client certificate signed by the CA in tls.clientCAFile is "
      "required for /quota; ";
  struct Case {
    std::vector<std::string> extra;
    int code;
    std::string output;
  } cases[] = {
      {{},
       1,
       refused + "the connection presented none (pass --cert and --key with a client "
                 "certificate from the server's client CA)\n"},
      {{"--cert", cert, "--key", key}, 0, kTable},
      {{"--cert", cert, "--key", key, "-o", "json"}, 0, kJson},
      {{"--cert", cert, "--key", key, "--tls-server-name", "gpugate.gpugate-system.svc"},
       0,
       kTable},
      {{"--cert", otherCert, "--key", otherKey},
       1,
       refused +
           "the one presented was refused: unable to verify the first certificate (the "
           "server did not accept --cert " +
           otherCert + ": it needs one from its client CA)\n"},
      {{"--cert", missing, "--key", key}, 1, "gpugate quota: cannot read --cert " + missing + "\n"},
      {{"--cert", cert, "--key", missing}, 1, "gpugate quota: cannot read --key " + missing + "\n"},
      {{"--cert", cert, "--key", otherKey},
       1,
       "gpugate quota: --key " + otherKey + " does not match --cert " + cert + "\n"},
      {{"--cert", key, "--key", cert},  // swapped
       1,
       "gpugate quota: --cert " + key + " holds no PEM certificate\n"},
      {{"--cert", cert, "--key", server_->caFile()},
       1,
       "gpugate quota: --key " + server_->caFile() + " holds no unencrypted PEM private key\n"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> args = {"quota", "--server", Url(), "--cacert", server_->caFile()};
    args.insert(args.end(), c.extra.begin(), c.extra.end());
    Exit run = RunGpugate(args);
    EXPECT_EQ(run.code, c.code) << ::testing::PrintToString(c.extra) << "\n" << run.output;
    EXPECT_EQ(run.output, c.output) << ::testing::PrintToString(c.extra);
  }
}

// A stand-in server for answers gpugate itself never gives.
class FakeServer {
 public:
  explicit FakeServer(const TempDir& certs)
      : http_(certs.File("tls.crt").c_str(), certs.File("tls.key").c_str()) {
    http_.Get("/quota", [](const httplib::Request& req, httplib::Response& res) {
      if (req.get_param_value("namespace") == "down") {
        res.status = 503;
        res.set_content("ledger unavailable\nsecond line\n", "text/plain");
      } else {
        res.set_content("<html>proxy login</html>", "text/html");
      }
    });
    // Listening once bound: clients queue in the backlog until the accept loop runs.
    port_ = http_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { http_.listen_after_bind(); });
  }
  ~FakeServer() {
    // stop() is a no-op before the accept loop has started.
    while (!http_.is_running()) std::this_thread::yield();
    http_.stop();
    thread_.join();
  }
  std::string Url() const { return "https://127.0.0.1:" + std::to_string(port_); }

 private:
  httplib::SSLServer http_;
  int port_ = 0;
  std::thread thread_;
};

TEST(QuotaCli, BadAnswersAndUnreachableServersExitOne) {
  TempDir certs;
  Exit made = RunGpugate({"certs", "--out", certs.path(), "--host", "127.0.0.1"});
  ASSERT_EQ(made.code, 0) << made.output;
  std::string unreachable;
  {
    FakeServer fake(certs);
    unreachable = fake.Url();  // closed once `fake` is gone
    Exit garbage = RunGpugate({"quota", "--server", fake.Url(), "--cacert", certs.File("ca.crt")});
    EXPECT_EQ(garbage.code, 1) << garbage.output;
    EXPECT_EQ(garbage.output,
              "gpugate quota: " + fake.Url() +
                  "/quota did not answer with a usage report: not valid JSON: parse error at "
                  "line 1, column 1: syntax error while parsing value - invalid literal; last "
                  "read: '<'\n");
    Exit failed = RunGpugate(
        {"quota", "--server", fake.Url(), "--cacert", certs.File("ca.crt"), "-n", "down"});
    EXPECT_EQ(failed.code, 1) << failed.output;
    EXPECT_EQ(failed.output, "gpugate quota: " + fake.Url() +
                                 "/quota: HTTP 503 Service Unavailable: ledger unavailable\n");
  }
  Exit refused = RunGpugate({"quota", "--server", unreachable, "--cacert", certs.File("ca.crt")});
  EXPECT_EQ(refused.code, 1) << refused.output;
  EXPECT_EQ(refused.output, "gpugate quota: " + unreachable +
                                "/quota: cannot connect (is gpugate serving there?)\n");
}

}  // namespace
}  // namespace gpugate::testing
