// Lifecycle through the real server: the API server's ?timeout= on a review, and a rolling
// restart of two instances behind one address under load, with no failed request.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "gpugate_process.h"
#include "review_builder.h"
#include "support/eventually.h"

namespace gpugate::testing {
namespace {

using nlohmann::json;

json GpuCreate(const std::string& name) {
  json pod = GpuPod(name, json::array({{{"nvidia.com/gpu", "1"}}}));
  pod["metadata"]["uid"] = "uid-" + name;
  return MakeReview(pod, {.uid = "req-" + name});
}

double UsedGpus(const GpugateServer& server) {
  auto res = server.Client()->Get("/quota?namespace=team-a");
  EXPECT_TRUE(res && res->status == 200);
  if (!res) return -1;
  const json body = json::parse(res->body);
  for (const auto& ns : body["namespaces"]) {
    if (ns["namespace"] == "team-a") {
      return ns["resources"].value("nvidia.com/gpu", json::object()).value("used", -1.0);
    }
  }
  return -1;
}

class TimeoutParam : public ::testing::Test {
 protected:
  TimeoutParam() {
    dir_.Write("gpugate.yaml", "quota:\n  namespaces:\n    team-a:\n      nvidia.com/gpu: 4\n");
  }
  TempDir dir_;
};

TEST_F(TimeoutParam, AReviewPastItsDeadlineIsNotChargedAndAValidOneIs) {
  GpugateServer server({"--config", dir_.File("gpugate.yaml")});
  auto client = server.Client();

  // timeout=0s: the deadline has passed by the time the review is decided. The API server never
  // sends 0s; it stands for "the answer would come too late", deterministically.
  auto late = client->Post("/validate?timeout=0s", GpuCreate("late").dump(), "application/json");
  ASSERT_TRUE(late) << httplib::to_string(late.error());
  ASSERT_EQ(late->status, 200) << late->body;
  json response = json::parse(late->body)["response"];
  EXPECT_FALSE(response["allowed"].get<bool>());
  EXPECT_EQ(response["status"]["code"], 504);
  EXPECT_EQ(response["status"]["reason"], "Timeout");  // kubectl: "Error from server (Timeout)"
  EXPECT_NE(response["status"]["message"].get<std::string>().find(
                "after the API server's timeout for this review; nothing was charged"),
            std::string::npos)
      << response;
  EXPECT_EQ(UsedGpus(server), 0);

  // The API server's usual form: answered in time, charged.
  auto ok = client->Post("/validate?timeout=10s", GpuCreate("on-time").dump(), "application/json");
  ASSERT_TRUE(ok);
  ASSERT_EQ(ok->status, 200) << ok->body;
  EXPECT_TRUE(json::parse(ok->body)["response"]["allowed"].get<bool>()) << ok->body;
  EXPECT_EQ(UsedGpus(server), 1);

  // A timeout that is not a duration is the caller's mistake: 400, naming it; nothing charged.
  for (const char* bad : {"abc", "5", "-1s", "25h"}) {
    auto res = client->Post(std::string("/validate?timeout=") + bad,
                            GpuCreate(std::string("bad-") + bad).dump(), "application/json");
    ASSERT_TRUE(res) << bad;
    EXPECT_EQ(res->status, 400) << bad << ": " << res->body;
    EXPECT_NE(res->body.find(std::string("timeout ") + bad), std::string::npos) << res->body;
  }
  EXPECT_EQ(UsedGpus(server), 1);
  // The late answer was logged as a decision with its reason.
  // (Info lines go out in batches, within 50 ms: waited for, not read at once.)
  EXPECT_TRUE(server.WaitForLog("\"reason\":\"deadline-exceeded\"", std::chrono::seconds(10)))
      << server.Logs();
}

// Log lines go out in batches; SIGTERM must not lose the last ones, nor the line that says the
// process stopped.
TEST(LogOnStop, EveryDecisionIsInTheLogAfterSigterm) {
  GpugateServer server;
  auto client = server.Client();
  constexpr int kReviews = 200;
  for (int i = 0; i < kReviews; ++i) {
    auto res =
        client->Post("/validate", GpuCreate("p" + std::to_string(i)).dump(), "application/json");
    ASSERT_TRUE(res && res->status == 200) << i;
  }
  ASSERT_EQ(server.Stop(), 0);
  // The last line; the wait is for the test's reader of the exited process's output.
  ASSERT_TRUE(server.WaitForLog("\"msg\":\"stopped\"", std::chrono::seconds(10))) << server.Logs();
  const std::string logs = server.Logs();
  for (int i = 0; i < kReviews; ++i) {
    EXPECT_NE(logs.find("\"uid\":\"req-p" + std::to_string(i) + "\""), std::string::npos) << i;
  }
}

// A TCP proxy standing in for a Service: each new connection goes to the next backend in its
// endpoint list (round robin); bytes are copied both ways until either side closes. Endpoints
// change while it runs, as they do when a pod is terminating or becomes ready.
class ServiceProxy {
 public:
  ServiceProxy() {
    listener_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(bind(listener_, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    EXPECT_EQ(listen(listener_, 128), 0);
    socklen_t len = sizeof addr;
    getsockname(listener_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    accepter_ = std::thread([this] { Accept(); });
  }
  ~ServiceProxy() {
    stopping_ = true;
    shutdown(listener_, SHUT_RDWR);
    close(listener_);
    accepter_.join();
    for (auto& t : pipes_) t.join();
  }
  int port() const { return port_; }
  void SetEndpoints(std::vector<int> ports) {
    std::lock_guard lock(mu_);
    endpoints_ = std::move(ports);
  }

 private:
  int NextBackend() {
    std::lock_guard lock(mu_);
    if (endpoints_.empty()) return -1;
    return endpoints_[next_++ % endpoints_.size()];
  }
  void Accept() {
    while (!stopping_) {
      int client = accept(listener_, nullptr, nullptr);
      if (client < 0) continue;
      int backend = NextBackend();
      int upstream = backend < 0 ? -1 : socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in addr{};
      addr.sin_family = AF_INET;
      addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      addr.sin_port = htons(static_cast<uint16_t>(backend));
      if (upstream < 0 || connect(upstream, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
        if (upstream >= 0) close(upstream);
        close(client);
        continue;
      }
      // Bytes are forwarded as they come, in as many writes: without this, Nagle's algorithm
      // holds a request's second write until the first is acknowledged (a 40 ms delayed ACK).
      int one = 1;
      setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      setsockopt(upstream, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      pipes_.emplace_back([client, upstream] { Pipe(client, upstream); });
    }
  }
  static void Pipe(int a, int b) {
    pollfd fds[2] = {{a, POLLIN, 0}, {b, POLLIN, 0}};
    char buf[16384];
    bool open = true;
    while (open && poll(fds, 2, -1) > 0) {
      for (int i = 0; i < 2 && open; ++i) {
        if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        ssize_t n = read(fds[i].fd, buf, sizeof buf);
        if (n <= 0 || write(fds[1 - i].fd, buf, n) != n) open = false;
      }
    }
    close(a);
    close(b);
  }

  int listener_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::mutex mu_;
  std::vector<int> endpoints_;  // guarded by mu_
  size_t next_ = 0;             // guarded by mu_
  std::thread accepter_;
  std::vector<std::thread> pipes_;  // only the accepter thread adds
};

bool Ready(const GpugateServer& server) {
  auto res = server.Client()->Get("/readyz");
  return res && res->status == 200;
}

// Waits (bounded) until `server` reports ready, as a readiness probe would.
void WaitReady(const GpugateServer& server) {
  Eventually([&] { return Ready(server); }, std::chrono::seconds(5));
  ASSERT_TRUE(Ready(server));
}

TEST(RollingRestart, TwoInstancesBehindOneAddressLoseNoRequest) {
  // The drain must outlast the endpoint update below, which waits for 50 more answers through
  // the draining instance: about 10 ms at the rate the callers reach here (thousands a second),
  // so 400 ms leaves a wide margin on a slow or sanitized build and keeps the test quick.
  TempDir dir;
  dir.Write("gpugate.yaml", "shutdownDelay: 400ms\n");
  const std::vector<std::string> args = {"--config", dir.File("gpugate.yaml")};
  auto a = std::make_unique<GpugateServer>(args);
  auto b = std::make_unique<GpugateServer>(args);
  WaitReady(*a);
  WaitReady(*b);
  ServiceProxy service;
  service.SetEndpoints({a->port(), b->port()});

  // Callers like the API server: kept-alive connections, one request in flight on each, no retry
  // of a POST that fails. Every answer must be a 200 review for the request's own uid.
  std::atomic<bool> stop{false};
  std::atomic<int> answered{0};
  std::mutex failuresMu;
  std::vector<std::string> failures;
  std::vector<std::thread> callers;
  for (int c = 0; c < 4; ++c) {
    callers.emplace_back([&, c] {
      httplib::SSLClient client("127.0.0.1", service.port());
      client.enable_server_certificate_verification(false);  // each instance has its own CA
      client.set_keep_alive(true);
      client.set_tcp_nodelay(true);  // else each POST waits out a delayed ACK (40 ms)
      client.set_connection_timeout(5, 0);
      client.set_read_timeout(10, 0);
      for (int i = 0; !stop; ++i) {
        std::string uid = "c" + std::to_string(c) + "-" + std::to_string(i);
        json review = MakeReview(GpuPod("p-" + uid, json::array({json::object()})), {.uid = uid});
        auto res = client.Post("/validate?timeout=5s", review.dump(), "application/json");
        std::string problem;
        if (!res) {
          problem = httplib::to_string(res.error());
        } else if (res->status != 200) {
          problem = "HTTP " + std::to_string(res->status) + ": " + res->body;
        } else if (json::parse(res->body)["response"]["uid"] != uid) {
          problem = "answer for another uid: " + res->body;
        }
        if (problem.empty()) {
          ++answered;
        } else {
          std::lock_guard lock(failuresMu);
          failures.push_back(uid + ": " + problem);
        }
      }
    });
  }
  auto waitForAnswers = [&](int more) {
    int target = answered + more;
    Eventually([&] { return answered >= target; }, std::chrono::seconds(10));
    EXPECT_GE(answered, target);
  };

  // Roll each instance in turn, as a Deployment's rolling update does: SIGTERM; the endpoint is
  // removed once the instance reports not ready (propagation takes a moment, which the drain
  // delay covers); the instance exits; its replacement joins once ready.
  auto roll = [&](std::unique_ptr<GpugateServer>& old, const GpugateServer& other) {
    waitForAnswers(200);
    old->Terminate();
    ASSERT_TRUE(old->WaitForLog("\"msg\":\"stopping\"", std::chrono::seconds(10)));
    waitForAnswers(50);  // still served through the old instance while endpoints catch up
    service.SetEndpoints({other.port()});
    EXPECT_EQ(old->Stop(), 0);
    std::string logs = old->Logs();
    EXPECT_NE(logs.find("\"msg\":\"stopped\""), std::string::npos) << logs;
    EXPECT_NE(logs.find("\"delay\":\"400ms\""), std::string::npos) << logs;  // the file's
    old = std::make_unique<GpugateServer>(args);
    WaitReady(*old);
    service.SetEndpoints({other.port(), old->port()});
  };
  roll(a, *b);
  roll(b, *a);
  waitForAnswers(200);
  stop = true;
  for (auto& t : callers) t.join();
  // Both drain at once on the way out, instead of one after the other in their destructors.
  a->Terminate();
  b->Terminate();

  EXPECT_TRUE(failures.empty()) << failures.size()
                                << " failed requests, the first: " << failures.front();
  EXPECT_GT(answered, 650);
}

}  // namespace
}  // namespace gpugate::testing
