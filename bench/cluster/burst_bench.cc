// Bursts of GPU pod creates in one namespace through several cluster-mode replicas, against the
// stand-in API server with a set write latency (docs/performance.md, "Bursts in cluster mode").
//
//   gpugate_burst GPUGATE [BASELINE]
//
// For each burst size, RUNS times, each binary in turn (so a change and an earlier commit are
// measured side by side in one run): a fresh stand-in whose writes take WRITE_LATENCY_MS, a
// ResourceQuota with ample room, REPLICAS replicas, then PODS concurrent 1-GPU creates spread
// round-robin, each sent with ?timeout=5s over a connection opened beforehand. Prints one row
// per run: reviews answered, answered within the timeout, admitted, latency percentiles, the
// GPUQuota writes the API received per admitted pod, and 409 conflicts.
//
// Environment: PODS ("300 1000"), RUNS (3), REPLICAS (2), WRITE_LATENCY_MS (10).
#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <latch>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cluster/bench_env.h"
#include "cluster/replica.h"
#include "standin/standin.h"

namespace gpugate::bench {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr milliseconds kReviewTimeout{5000};  // the manifests' timeoutSeconds

std::string CreateReview(const std::string& name) {
  json limits = {{"nvidia.com/gpu", "1"}};
  json pod = {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", {{"name", name}, {"namespace", "team-a"}, {"uid", "uid-" + name}}},
      {"spec",
       {{"containers",
         json::array(
             {{{"name", "main"}, {"image", "cuda:12"}, {"resources", {{"limits", limits}}}}})}}}};
  return json{{"apiVersion", "admission.k8s.io/v1"},
              {"kind", "AdmissionReview"},
              {"request",
               {{"uid", "req-" + name},
                {"kind", {{"group", ""}, {"version", "v1"}, {"kind", "Pod"}}},
                {"resource", {{"group", ""}, {"version", "v1"}, {"resource", "pods"}}},
                {"name", name},
                {"namespace", "team-a"},
                {"operation", "CREATE"},
                {"userInfo", {{"username", "bench"}}},
                {"object", pod},
                {"dryRun", false}}}}
      .dump();
}

struct Outcome {
  bool answered = false;
  bool admitted = false;
  milliseconds latency{0};
};

struct RunResult {
  int pods = 0, answered = 0, inTime = 0, admitted = 0;
  double p50 = 0, p99 = 0, max = 0;  // ms, over answered reviews
  int writes = 0, conflicts = 0;
};

double Percentile(std::vector<double> sorted, double p) {
  if (sorted.empty()) return 0;
  size_t i = std::min(sorted.size() - 1, static_cast<size_t>(p * (sorted.size() - 1) + 0.5));
  return sorted[i];
}

// A scratch directory, removed with it.
struct WorkDir {
  WorkDir() {
    char pattern[] = "/tmp/gpugate-burst-XXXXXX";
    if (!mkdtemp(pattern)) throw std::runtime_error("mkdtemp failed");
    path = pattern;
  }
  ~WorkDir() { std::filesystem::remove_all(path); }
  std::string path;
};

RunResult Burst(const std::string& gpugate, int pods, int replicas, milliseconds writeLatency) {
  WorkDir dir;
  if (auto made = MakeCertificates(gpugate, dir.path); !made) {
    throw std::runtime_error(made.error().message);
  }
  testing::StandInApiServer api({.certFile = dir.path + "/tls.crt",
                                 .keyFile = dir.path + "/tls.key",
                                 .writeLatency = writeLatency});
  int apiPort = api.Start();
  if (apiPort < 0) throw std::runtime_error("the stand-in did not start");
  WriteClusterConfig(dir.path, apiPort);
  api.Create("/api/v1/namespaces/team-a/resourcequotas",
             {{"apiVersion", "v1"},
              {"kind", "ResourceQuota"},
              {"metadata", {{"name", "gpus"}}},
              {"spec", {{"hard", {{"requests.nvidia.com/gpu", "100000"}}}}}});
  std::vector<std::unique_ptr<Replica>> fleet;
  for (int i = 0; i < replicas; ++i) {
    std::string log = dir.path + "/replica-" + std::to_string(i) + ".log";
    auto started = Replica::Start(gpugate, dir.path, dir.path + "/gpugate.yaml", log);
    if (!started) throw std::runtime_error(started.error().message);
    fleet.push_back(std::move(*started));
    auto limit = Clock::now() + std::chrono::seconds(30);
    while (!fleet.back()->Ready()) {
      if (Clock::now() > limit) throw std::runtime_error("a replica never became ready");
      std::this_thread::sleep_for(milliseconds(10));
    }
  }
  const int writesBefore = api.requests("PUT") + api.requests("POST");
  std::vector<Outcome> outcomes(pods);
  std::latch connected(pods), go(1);
  std::vector<std::thread> threads;
  for (int i = 0; i < pods; ++i) {
    threads.emplace_back([&, i] {
      auto client = fleet[i % replicas]->NewClient();
      std::string body = CreateReview("burst-" + std::to_string(i));
      auto warm = client->Get("/healthz");  // the connection and its handshake, before the burst
      connected.count_down();
      go.wait();
      if (!warm) return;
      auto start = Clock::now();
      auto res = client->Post("/validate?timeout=5s", body, "application/json");
      Outcome& o = outcomes[i];
      o.latency = std::chrono::duration_cast<milliseconds>(Clock::now() - start);
      if (!res || res->status != 200) return;
      o.answered = true;
      json review = json::parse(res->body, nullptr, false);
      o.admitted = review.is_object() && review["response"].value("allowed", false);
    });
  }
  connected.wait();
  go.count_down();
  for (std::thread& t : threads) t.join();

  RunResult r{.pods = pods};
  std::vector<double> latencies;
  for (const Outcome& o : outcomes) {
    if (!o.answered) continue;
    ++r.answered;
    r.inTime += o.latency <= kReviewTimeout;
    r.admitted += o.admitted;
    latencies.push_back(static_cast<double>(o.latency.count()));
  }
  std::sort(latencies.begin(), latencies.end());
  r.p50 = Percentile(latencies, 0.50);
  r.p99 = Percentile(latencies, 0.99);
  r.max = latencies.empty() ? 0 : latencies.back();
  r.writes = api.requests("PUT") + api.requests("POST") - writesBefore;
  r.conflicts = api.conflicts();
  fleet.clear();
  api.Stop();
  return r;
}

void Print(const char* which, const RunResult& r) {
  printf("%-8s %6d %9d %10d %9d %8.0f %8.0f %8.0f %8d %10.3f %10d\n", which, r.pods, r.answered,
         r.inTime, r.admitted, r.p50, r.p99, r.max, r.writes,
         r.admitted ? static_cast<double>(r.writes) / r.admitted : 0.0, r.conflicts);
  fflush(stdout);
}

}  // namespace
}  // namespace gpugate::bench

int main(int argc, char** argv) {
  using namespace gpugate::bench;
  if (argc < 2) {
    fprintf(stderr, "usage: %s GPUGATE [BASELINE]\n", argv[0]);
    return 2;
  }
  const int runs = EnvInt("RUNS", 3), replicas = EnvInt("REPLICAS", 2);
  const milliseconds latency{EnvInt("WRITE_LATENCY_MS", 10)};
  printf("# %d replicas, API writes taking %lld ms, creates sent with ?timeout=5s\n", replicas,
         static_cast<long long>(latency.count()));
  printf("%-8s %6s %9s %10s %9s %8s %8s %8s %8s %10s %10s\n", "binary", "pods", "answered",
         "within_5s", "admitted", "p50_ms", "p99_ms", "max_ms", "writes", "writes/pod",
         "conflicts");
  try {
    for (int pods : EnvInts("PODS", "300 1000")) {
      for (int run = 0; run < runs; ++run) {
        Print("after", Burst(argv[1], pods, replicas, latency));
        if (argc > 2) Print("before", Burst(argv[2], pods, replicas, latency));
      }
    }
  } catch (const std::exception& e) {
    fprintf(stderr, "gpugate_burst: %s\n", e.what());
    return 1;
  }
  return 0;
}
