// KubeClient against the stand-in API server (tests/standin/) over real TLS.
#include "cluster/kube_client.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <thread>

#include "cluster/test_certs.h"
#include "standin/standin.h"
#include "support/eventually.h"

namespace gpugate::cluster {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

constexpr char kToken[] = "stand-in-token";
constexpr char kPods[] = "/api/v1/namespaces/team-a/pods";

json Pod(const std::string& name) {
  return {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", {{"name", name}}}, {"spec", {}}};
}

class KubeClientTest : public ::testing::Test {
 protected:
  void SetUp() override { StartServer({}); }

  // (Re)starts the stand-in with `options` (certificates filled in).
  void StartServer(gpugate::testing::StandInApiServer::Options options) {
    const auto& certs = testing::SharedTestCerts();
    options.certFile = certs.certFile();
    options.keyFile = certs.keyFile();
    // ?timeoutSeconds=1 lasts 100 ms here, so a watch that ends at the server's timeout is
    // quick to wait for.
    options.watchTimeoutUnit = std::chrono::milliseconds(100);
    server_.reset();
    server_ = std::make_unique<gpugate::testing::StandInApiServer>(std::move(options));
    port_ = server_->Start();
    ASSERT_GT(port_, 0);
  }

  // Waits up to 5 s for the stand-in to have closed `n` idle connections in all.
  bool IdleClosed(int n) const {
    return gpugate::testing::Eventually([&] { return server_->idleConnectionsClosed() >= n; }, 5s);
  }

  KubeConfig Config() const {
    KubeConfig config;
    config.host = "127.0.0.1";
    config.port = port_;
    config.caPem = testing::SharedTestCerts().bundle.caCertPem;
    config.token = kToken;
    return config;
  }

  // The status of a GET, or the error text.
  static std::string Probe(KubeClient& client, const std::string& path = kPods) {
    auto res = client.Get(path);
    return res ? std::to_string(res->status) : "error: " + res.error().message;
  }

  std::unique_ptr<gpugate::testing::StandInApiServer> server_;
  int port_ = 0;
};

TEST_F(KubeClientTest, SpeaksJsonWithStatusCodesAsValues) {
  KubeClient client(Config());
  auto created = client.Post(kPods, Pod("a").dump());
  ASSERT_TRUE(created) << created.error().message;
  EXPECT_EQ(created->status, 201);
  std::string rv = json::parse(created->body)["metadata"]["resourceVersion"];

  auto again = client.Post(kPods, Pod("a").dump());
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 409);
  EXPECT_EQ(json::parse(again->body)["reason"], "AlreadyExists");

  json update = Pod("a");
  update["metadata"]["resourceVersion"] = rv;
  update["metadata"]["labels"] = {{"x", "1"}};
  auto put = client.Put(std::string(kPods) + "/a", update.dump());
  ASSERT_TRUE(put);
  EXPECT_EQ(put->status, 200);
  auto stale = client.Put(std::string(kPods) + "/a", update.dump());  // rv is old now
  ASSERT_TRUE(stale);
  EXPECT_EQ(stale->status, 409);

  auto list = client.Get(kPods);
  ASSERT_TRUE(list);
  EXPECT_EQ(list->status, 200);
  EXPECT_EQ(json::parse(list->body)["items"].size(), 1u);
  EXPECT_EQ(client.Delete(std::string(kPods) + "/a")->status, 200);
  EXPECT_EQ(client.Get(std::string(kPods) + "/a")->status, 404);
}

TEST_F(KubeClientTest, AuthenticatesWithATokenFileItRereadsWhenItChanges) {
  testing::TempDir dir;
  KubeConfig config = Config();
  config.token.clear();
  config.tokenFile = dir.Write("token", "wrong\n");
  KubeClient client(config);
  EXPECT_EQ(Probe(client), "401");
  dir.Write("token", std::string(kToken) + "\n");  // the kubelet rotated it
  EXPECT_EQ(Probe(client), "200");

  config.tokenFile = dir.File("absent");
  KubeClient missing(config);
  EXPECT_EQ(Probe(missing), "error: GET https://127.0.0.1:" + std::to_string(port_) + kPods +
                                ": bearer token: cannot read " + dir.File("absent") +
                                ": No such file or directory");
}

TEST_F(KubeClientTest, VerifiesTheServerAgainstTheConfiguredCaOnly) {
  auto other = testing::IssueTestCerts();
  struct Case {
    std::string name;
    std::string caPem;
    bool insecure;
    std::string serverName;
    const char* sslCertFile;  // the "system roots" OpenSSL would use
    std::string want;
  } cases[] = {
      {"its CA", Config().caPem, false, "", nullptr, "200"},
      {"another CA", other->bundle.caCertPem, false, "", nullptr,
       "TLS handshake failed: unable to get local issuer certificate"},
      // cpp-httplib's own check would add the system roots beside a configured CA.
      {"another CA, server's CA among system roots", other->bundle.caCertPem, false, "", "ca.crt",
       "TLS handshake failed: unable to get local issuer certificate"},
      {"system roots", "", false, "", "ca.crt", "200"},
      {"insecure", "", true, "", nullptr, "200"},
      {"server name on the certificate", Config().caPem, false, "gpugate.gpugate-system.svc",
       nullptr, "200"},
      {"server name not on the certificate", Config().caPem, false, "api.example.com", nullptr,
       "TLS handshake failed: hostname mismatch"},
  };
  for (const auto& c : cases) {
    const char* old = getenv("SSL_CERT_FILE");
    std::string saved = old ? old : "";
    if (c.sslCertFile)
      setenv("SSL_CERT_FILE", testing::SharedTestCerts().dir.File(c.sslCertFile).c_str(), 1);
    KubeConfig config = Config();
    config.caPem = c.caPem;
    config.insecureSkipVerify = c.insecure;
    config.tlsServerName = c.serverName;
    KubeClient client(config);
    std::string got = Probe(client);
    old ? setenv("SSL_CERT_FILE", saved.c_str(), 1) : unsetenv("SSL_CERT_FILE");
    if (c.want == "200") {
      EXPECT_EQ(got, "200") << c.name;
    } else {
      EXPECT_TRUE(got.ends_with(c.want)) << c.name << ": " << got;
    }
  }
}

TEST_F(KubeClientTest, ReportsConfigAndConnectionErrors) {
  KubeConfig badCa = Config();
  badCa.caPem = "not a certificate";
  KubeClient client(badCa);
  std::string prefix = "error: GET https://127.0.0.1:" + std::to_string(port_) + kPods + ": ";
  EXPECT_EQ(Probe(client), prefix + "certificate authority: no PEM certificate found");

  KubeConfig closed = Config();
  server_->Stop();
  KubeClient refused(closed);
  EXPECT_EQ(Probe(refused), prefix + "cannot connect");
}

TEST_F(KubeClientTest, ServesConcurrentRequestsFromThePool) {
  KubeClient client(Config());
  server_->Create(kPods, Pod("a"));
  std::atomic<int> ok{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 50; ++i) ok += Probe(client) == "200";
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok, 200);
}

// kube-apiserver closes connections idle for 90 s with a close_notify; before the fix the next
// request on each pooled connection failed ("PUT ...: connection lost while writing").
TEST_F(KubeClientTest, RequestsOnConnectionsTheServerClosedWhileIdleSucceed) {
  StartServer({.idleConnectionTimeout = 200ms});
  KubeClient client(Config());
  auto created = client.Post(kPods, Pod("a").dump());
  ASSERT_TRUE(created) << created.error().message;
  ASSERT_EQ(created->status, 201);

  ASSERT_TRUE(IdleClosed(1));
  json update = json::parse(created->body);
  update["metadata"]["labels"] = {{"x", "1"}};
  auto put = client.Put(std::string(kPods) + "/a", update.dump());
  ASSERT_TRUE(put) << put.error().message;
  EXPECT_EQ(put->status, 200) << put->body;

  ASSERT_TRUE(IdleClosed(2));
  EXPECT_EQ(Probe(client, std::string(kPods) + "/a"), "200");

  ASSERT_TRUE(IdleClosed(3));
  auto second = client.Post(kPods, Pod("b").dump());
  ASSERT_TRUE(second) << second.error().message;
  EXPECT_EQ(second->status, 201) << second->body;

  EXPECT_EQ(server_->Get(std::string(kPods) + "/a")["metadata"]["labels"], json({{"x", "1"}}));
  EXPECT_EQ(client.retries(), 3);  // each on a new connection, once
}

// A connection idle longer than the client's limit is closed by the client, before the server
// would; the limit is measured on the injected clock, so no test waits 60 s.
TEST_F(KubeClientTest, ConnectionsIdleLongerThanTheLimitAreNotReused) {
  KubeClient client(Config());
  const auto start = std::chrono::steady_clock::now();
  std::atomic<int64_t> elapsedMs{0};
  client.set_clock([&] { return start + std::chrono::milliseconds(elapsedMs.load()); });
  client.set_idle_limit(60s);

  EXPECT_EQ(Probe(client), "200");
  EXPECT_EQ(server_->connectionsAccepted(), 1);
  elapsedMs += 59'000;
  EXPECT_EQ(Probe(client), "200");
  EXPECT_EQ(server_->connectionsAccepted(), 1) << "reused within the limit";
  elapsedMs += 60'000;
  EXPECT_EQ(Probe(client), "200");
  EXPECT_EQ(server_->connectionsAccepted(), 2) << "a new connection after the limit";
  EXPECT_EQ(client.retries(), 0);
}

// A request whose connection the server cannot be reached on is not retried: only a reused
// connection that failed before the answer began is.
TEST_F(KubeClientTest, ANewConnectionThatFailsIsNotRetried) {
  KubeClient client(Config());
  server_->Stop();
  EXPECT_TRUE(Probe(client).ends_with(": cannot connect")) << Probe(client);
  EXPECT_EQ(client.retries(), 0);
}

// A request whose answer had begun when the connection broke is not sent again: the server may
// have acted on it.
TEST_F(KubeClientTest, ARequestCutOffMidAnswerIsNotRetried) {
  KubeClient client(Config());
  ASSERT_EQ(Probe(client), "200");  // a pooled connection, so a failure could be retried
  server_->InjectFailures({.method = "PUT", .cutMidAnswer = true});
  auto cut = client.Put(std::string(kPods) + "/a", Pod("a").dump());
  ASSERT_FALSE(cut);
  EXPECT_EQ(server_->requests("PUT"), 1);
  EXPECT_EQ(client.retries(), 0);
  EXPECT_EQ(Probe(client), "200");  // and the client goes on, on a new connection
}

// A request held by the server past its deadline fails at the deadline, saying so, and is not
// sent again; one whose deadline has passed is not sent at all.
TEST_F(KubeClientTest, ARequestEndsAtItsDeadline) {
  KubeClient client(Config());
  ASSERT_EQ(Probe(client), "200");  // a pooled connection, so a failure could be retried
  server_->HoldRequests({.method = "PUT", .delay = 30s});
  auto held = client.Put(std::string(kPods) + "/a", Pod("a").dump(),
                         std::chrono::steady_clock::now() + 300ms);
  ASSERT_FALSE(held);
  EXPECT_NE(held.error().message.find("no answer within "), std::string::npos)
      << held.error().message;
  EXPECT_NE(held.error().message.find(" ms, the time left before the deadline"), std::string::npos)
      << held.error().message;
  EXPECT_EQ(server_->held(), 1);
  EXPECT_EQ(client.retries(), 0);

  auto late = client.Get(kPods, std::chrono::steady_clock::now() - 1ms);
  ASSERT_FALSE(late);
  EXPECT_TRUE(late.error().message.ends_with(": not sent: no time left")) << late.error().message;
  server_->ReleaseHeld();
}

// Records a watch's lines on a thread of its own.
class WatchThread {
 public:
  WatchThread(KubeClient& client, const std::string& path, int stopAfter = -1)
      : WatchThread(client, path, ownStop_, stopAfter) {}
  WatchThread(KubeClient& client, const std::string& path, WatchStop& stop, int stopAfter = -1) {
    thread_ = std::thread([this, &client, path, &stop, stopAfter] {
      auto result = client.Watch(
          path, stop,
          [&](std::string_view line) {
            std::lock_guard lock(mu_);
            lines_.push_back(json::parse(line));
            changed_.notify_all();
            return stopAfter < 0 || static_cast<int>(lines_.size()) < stopAfter;
          },
          30, [&] { opened_ = true; });
      std::lock_guard lock(mu_);
      result_ = result ? std::to_string(*result) : "error: " + result.error().message;
      changed_.notify_all();
    });
  }
  ~WatchThread() { thread_.join(); }

  // Waits up to 5 s for `n` lines (or the end); returns their types.
  std::vector<std::string> Types(size_t n) {
    std::unique_lock lock(mu_);
    changed_.wait_for(lock, 5s, [&] { return lines_.size() >= n || !result_.empty(); });
    std::vector<std::string> types;
    for (const auto& line : lines_) types.push_back(line["type"]);
    return types;
  }
  // Waits up to 5 s for Watch to return; its status or error.
  std::string Result() {
    std::unique_lock lock(mu_);
    changed_.wait_for(lock, 5s, [&] { return !result_.empty(); });
    return result_;
  }
  bool opened() const { return opened_; }

 private:
  WatchStop ownStop_;  // for a watch no test stops
  std::mutex mu_;
  std::condition_variable changed_;
  std::vector<json> lines_;
  std::string result_;
  std::atomic<bool> opened_{false};
  std::thread thread_;
};

std::string WatchFrom(const std::string& rv) {
  return std::string(kPods) + "?watch=1&resourceVersion=" + rv;
}

TEST_F(KubeClientTest, WatchDeliversEachEventLineUntilTheHandlerStops) {
  KubeClient client(Config());
  std::string rv = server_->Create(kPods, Pod("a"))["metadata"]["resourceVersion"];
  WatchThread watch(client, WatchFrom(rv), 3);
  server_->Create(kPods, Pod("b"));
  server_->Update(std::string(kPods) + "/b", Pod("b"));
  server_->Delete(std::string(kPods) + "/b");
  EXPECT_EQ(watch.Types(3), (std::vector<std::string>{"ADDED", "MODIFIED", "DELETED"}));
  EXPECT_EQ(watch.Result(), "200");
  EXPECT_TRUE(watch.opened());
}

TEST_F(KubeClientTest, WatchEndsWithTheServersTimeout) {
  KubeClient client(Config());
  WatchThread watch(client, WatchFrom("1") + "&timeoutSeconds=1");
  EXPECT_EQ(watch.Result(), "200");
}

TEST_F(KubeClientTest, ABrokenWatchIsAnError) {
  KubeClient client(Config());
  std::string rv = server_->Create(kPods, Pod("a"))["metadata"]["resourceVersion"];
  WatchThread watch(client, WatchFrom(rv));
  server_->Create(kPods, Pod("b"));
  ASSERT_EQ(watch.Types(1).size(), 1u);
  server_->BreakWatches();
  EXPECT_TRUE(watch.Result().starts_with("error: watch https://127.0.0.1:")) << watch.Result();
}

TEST_F(KubeClientTest, AWatchRefusedReturnsItsStatus) {
  KubeConfig config = Config();
  config.token = "wrong";
  KubeClient client(config);
  WatchThread watch(client, WatchFrom("1"));
  EXPECT_EQ(watch.Result(), "401");
  EXPECT_FALSE(watch.opened());
  EXPECT_TRUE(watch.Types(0).empty());  // the Status body is not passed on as events
}

TEST_F(KubeClientTest, AStopTokenEndsItsQuietWatchesAndLaterOnes) {
  KubeClient client(Config());
  WatchStop stop;
  {
    WatchThread first(client, WatchFrom("1"), stop);
    WatchThread second(client, WatchFrom("1"), stop);
    ASSERT_TRUE(gpugate::testing::Eventually([&] { return server_->watchesOpened() >= 2; }, 5s));
    stop.Stop();
    EXPECT_TRUE(first.Result().ends_with(": canceled")) << first.Result();
    EXPECT_TRUE(second.Result().ends_with(": canceled")) << second.Result();
  }
  auto later = client.Watch(WatchFrom("1"), stop, [](std::string_view) { return true; });
  ASSERT_FALSE(later);
  EXPECT_TRUE(later.error().message.ends_with(": canceled"));
  EXPECT_EQ(Probe(client), "200");  // plain requests are not affected
}

TEST_F(KubeClientTest, StoppingOneWatchLeavesAnotherOnTheSameClientStreaming) {
  KubeClient client(Config());
  WatchStop stopped;
  WatchStop going;
  WatchThread first(client, WatchFrom("1"), stopped);
  WatchThread second(client, WatchFrom("1"), going, 1);
  ASSERT_TRUE(gpugate::testing::Eventually([&] { return server_->watchesOpened() >= 2; }, 5s));
  stopped.Stop();
  EXPECT_TRUE(first.Result().ends_with(": canceled")) << first.Result();
  server_->Create(kPods, Pod("a"));
  EXPECT_EQ(second.Types(1), std::vector<std::string>{"ADDED"});
  EXPECT_EQ(second.Result(), "200");
}

}  // namespace
}  // namespace gpugate::cluster
