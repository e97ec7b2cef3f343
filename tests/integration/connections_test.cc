// Many connections through the real `gpugate serve` over real TLS. The apiserver keeps up to 25
// idle connections per webhook server and opens more during bursts: idle connections must never
// make a new one wait, and none of them may be starved. Then big bodies and deep nesting.
#include <gtest/gtest.h>
#include <httplib.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "gpugate_process.h"
#include "review_builder.h"
#include "test_paths.h"

namespace gpugate::testing {
namespace {

using nlohmann::json;

constexpr int kKeptAlive = 256;
constexpr int kFresh = 16;
constexpr int kClientThreads = 16;  // bounded, so 256 handshakes stay quick on two cores

// Runs fn(0) .. fn(n - 1) on kClientThreads threads.
void ParallelFor(int n, const std::function<void(int)>& fn) {
  std::atomic<int> next{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kClientThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = next++; i < n; i = next++) fn(i);
    });
  }
  for (auto& t : threads) t.join();
}

// Counts answers with status 200 from many threads and keeps the first failure for the message.
class Tally {
 public:
  void Add(const httplib::Result& res, const std::string& what) {
    if (res && res->status == 200) {
      ++ok_;
      return;
    }
    std::lock_guard lock(mu_);
    if (firstFailure_.empty()) {
      firstFailure_ = what + ": " +
                      (res ? "status " + std::to_string(res->status) + " " + res->body
                           : "no answer: " + httplib::to_string(res.error()));
    }
  }
  int ok() const { return ok_; }
  std::string firstFailure() {
    std::lock_guard lock(mu_);
    return firstFailure_;
  }

 private:
  std::atomic<int> ok_{0};
  std::mutex mu_;
  std::string firstFailure_;
};

// Gives up on an answer after 5 s, so a connection left waiting for a worker (a starved one)
// fails the test instead of hanging it. Generous: a served request takes milliseconds.
std::unique_ptr<httplib::SSLClient> PatientClient(const GpugateServer& server) {
  auto client = server.Client();
  client->set_keep_alive(true);
  client->set_read_timeout(5, 0);
  client->set_write_timeout(5, 0);
  return client;
}

// An unlabelled sample's value from Prometheus text, or -1 when absent.
double Sample(const std::string& text, const std::string& name) {
  size_t at = text.find("\n" + name + " ");
  if (at == std::string::npos) return -1;
  return std::stod(text.substr(at + name.size() + 2));
}

std::string Metrics(const GpugateServer& server) {
  auto res = PatientClient(server)->Get("/metrics");
  EXPECT_TRUE(res && res->status == 200) << "/metrics did not answer";
  return res ? res->body : "";
}

// `n` kept-alive clients, each of which has posted `review` once; each answer counted in `tally`
// under "<what> <i>".
std::vector<std::unique_ptr<httplib::SSLClient>> ClientsThatAsked(const GpugateServer& server,
                                                                  int n, const std::string& review,
                                                                  Tally& tally,
                                                                  const std::string& what) {
  std::vector<std::unique_ptr<httplib::SSLClient>> clients(n);
  ParallelFor(n, [&](int i) {
    clients[i] = PatientClient(server);
    tally.Add(clients[i]->Post("/validate", review, "application/json"),
              what + " " + std::to_string(i));
  });
  return clients;
}

TEST(Connections, FreshConnectionsAreServedWhileManyKeptAliveOnesIdle) {
  GpugateServer server;
  const std::string review =
      MakeReview(GpuPod("p", json::array({{{"nvidia.com/gpu", "1"}}}))).dump();

  // 256 connections, each answered once and then left open and idle.
  Tally first;
  auto kept = ClientsThatAsked(server, kKeptAlive, review, first, "first request");
  ASSERT_EQ(first.ok(), kKeptAlive) << first.firstFailure();
  std::string before = Metrics(server);
  EXPECT_GE(Sample(before, "gpugate_http_connections_open"), kKeptAlive) << before;

  // With all of them still open, new connections are answered at once, not after an idle one
  // times out.
  Tally fresh;
  ParallelFor(kFresh, [&](int i) {
    fresh.Add(PatientClient(server)->Post("/validate", review, "application/json"),
              "fresh client " + std::to_string(i));
  });
  EXPECT_EQ(fresh.ok(), kFresh) << fresh.firstFailure();

  // Every kept-alive connection still works, and is the same connection: the only connections
  // accepted since `before` are the fresh clients' and the one fetching `after`.
  Tally second;
  ParallelFor(kKeptAlive, [&](int i) {
    second.Add(kept[i]->Post("/validate", review, "application/json"),
               "second request " + std::to_string(i));
  });
  EXPECT_EQ(second.ok(), kKeptAlive) << second.firstFailure();
  std::string after = Metrics(server);
  EXPECT_EQ(Sample(after, "gpugate_http_connections_accepted_total") -
                Sample(before, "gpugate_http_connections_accepted_total"),
            kFresh + 1)
      << "kept-alive connections were closed and reopened\n"
      << after;
  EXPECT_EQ(Sample(after, "gpugate_http_connections_refused_total"), 0) << after;

  // A stop with every connection open is clean, and prompt: Kubernetes kills a pod that is
  // still running 30 s after SIGTERM, while an idle connection left alone lasts 120 s.
  auto stopped = std::async(std::launch::async, [&] { return server.Stop(); });
  ASSERT_EQ(stopped.wait_for(std::chrono::seconds(30)), std::future_status::ready)
      << "SIGTERM waited on idle kept-alive connections";
  EXPECT_EQ(stopped.get(), 0) << server.Logs();
  // The kept-alive ones were open to the end (clients that just hung up may be counted too).
  const std::string needle = "\"msg\":\"closing connections\",\"open\":";
  ASSERT_TRUE(server.WaitForLog(needle, std::chrono::seconds(5))) << server.Logs();
  std::string logs = server.Logs();
  EXPECT_GE(std::stoi(logs.substr(logs.find(needle) + needle.size())), kKeptAlive) << logs;
}

// Containers often start processes with an open-file soft limit of 1,024 and a higher hard
// limit. gpugate raises its soft limit to fit its connection bound; without that, connections
// past the soft limit would wait in the listen backlog until others closed.
TEST(Connections, ASmallOpenFileSoftLimitDoesNotCapConnections) {
  constexpr rlim_t kSoft = 128;
  constexpr int kOpen = 300;
  rlimit mine{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &mine), 0);
  if (mine.rlim_max != RLIM_INFINITY && mine.rlim_max < 2 * kOpen) {
    GTEST_SKIP() << "the hard open-file limit (" << mine.rlim_max
                 << ") is too low to show the server raising its soft limit";
  }
  // The server inherits the lowered soft limit; this process gets its own back at once.
  rlimit low{kSoft, mine.rlim_max};
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &low), 0);
  GpugateServer server;
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &mine), 0);
  // Below the bound (4,096 connections) the server says so; this machine's hard limit decides.
  const bool roomForAll = mine.rlim_max == RLIM_INFINITY || mine.rlim_max >= 4096 + 64;
  EXPECT_EQ(server.Logs().find("open file limit is below") == std::string::npos, roomForAll)
      << server.Logs();

  const std::string review =
      MakeReview(GpuPod("p", json::array({{{"nvidia.com/gpu", "1"}}}))).dump();
  Tally answered;
  auto open = ClientsThatAsked(server, kOpen, review, answered, "connection");
  EXPECT_EQ(answered.ok(), kOpen) << answered.firstFailure();
  std::string metrics = Metrics(server);
  EXPECT_GE(Sample(metrics, "gpugate_http_connections_open"), kOpen) << metrics;
}

// `depth` JSON arrays nested around `inner`.
std::string NestedArrays(int depth, const std::string& inner) {
  return std::string(depth, '[') + inner + std::string(depth, ']');
}

// `depth` objects {"a": ...} nested around `inner`.
std::string NestedObjects(int depth, const std::string& inner) {
  std::string out;
  for (int i = 0; i < depth; ++i) out += "{\"a\":";
  out += inner;
  out.append(depth, '}');
  return out;
}

// A review whose pod has `spec.<field>` and `limits[nvidia.com/gpu]` replaced by raw JSON text.
std::string ReviewWithRaw(const std::string& specField, const std::string& limit) {
  json pod = GpuPod("deep", json::array({{{"nvidia.com/gpu", "@LIMIT@"}}}));
  pod["spec"]["deep"] = "@SPEC@";
  std::string text = MakeReview(pod).dump();
  text.replace(text.find("\"@SPEC@\""), 8, specField);
  text.replace(text.find("\"@LIMIT@\""), 9, limit);
  return text;
}

TEST(Connections, BigAndDeepRequestsAreAnswered) {
  GpugateServer server;
  json everyField = json::parse(ReadFile(std::string(GPUGATE_FIXTURES_DIR) + "/core.v1.Pod.json"));
  everyField["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] = "1";
  const std::string everyFieldReview = MakeReview(everyField).dump(2);  // as the fixture: 61 KB
  ASSERT_GT(everyFieldReview.size(), 60'000u);

  struct Case {
    std::string name, path, body;
    std::vector<int> statuses;  // any of these
  } cases[] = {
      {"every-field pod", "/validate", everyFieldReview, {200}},
      {"every-field pod, mutate", "/mutate", everyFieldReview, {200}},
      // Within simdjson's default depth limit (1024) the whole body must be decoded and walked.
      {"900 nested objects under spec",
       "/validate",
       ReviewWithRaw(NestedObjects(900, "1"), "\"1\""),
       {200}},
      {"900 nested arrays as a quantity",
       "/validate",
       ReviewWithRaw("1", NestedArrays(900, "1")),
       {200}},
      // Past any parser's limit: refused or walked, but answered.
      {"100000 nested arrays under spec",
       "/validate",
       ReviewWithRaw(NestedArrays(100'000, ""), "\"1\""),
       {200, 400}},
      {"100000 nested objects under spec",
       "/mutate",
       ReviewWithRaw(NestedObjects(100'000, "1"), "\"1\""),
       {200, 400}},
      {"unclosed nesting", "/validate", std::string(1'000'000, '['), {400}},
      {"8 KB path", "/" + std::string(8000, 'v'), "{}", {404}},
  };
  for (const auto& c : cases) {
    auto res = PatientClient(server)->Post(c.path, c.body, "application/json");
    ASSERT_TRUE(res) << c.name << ": no answer (" << httplib::to_string(res.error()) << "); logs:\n"
                     << server.Logs().substr(0, 2000);
    EXPECT_NE(std::find(c.statuses.begin(), c.statuses.end(), res->status), c.statuses.end())
        << c.name << ": status " << res->status << " " << res->body.substr(0, 300);
  }

  EXPECT_EQ(server.Stop(), 0) << server.Logs().substr(0, 2000);
}

}  // namespace
}  // namespace gpugate::testing
