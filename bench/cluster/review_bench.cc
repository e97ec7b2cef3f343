// What one review costs a cluster-mode replica, route against route (docs/performance.md,
// "Cluster mode, per request: /validate against /mutate, and the hand-off").
//
//   gpugate_cluster_review GPUGATE REVIEW_JSON
//
// One `gpugate serve` replica in cluster mode (a child process: real TLS, real config) against
// the stand-in API server in this process. REVIEW_JSON is a GPU Pod's CREATE review (the load
// benchmarks' 3k.json, bench/load/make_bodies.py); from it come the cases below, sent over CONNS
// kept-alive TLS connections, each case in turn, ROUNDS times (rounds interleave the cases, so
// the machine's drift touches them alike):
//   mutate-create    /mutate of the GPU pod's CREATE (patched; never charges);
//   mutate-update    /mutate of the UPDATE below (the same body as validate-update);
//   validate-update  /validate of the same pod relabelled, an UPDATE: nothing to charge;
//   validate-cpu     /validate of the pod without its GPUs, a CREATE: nothing to charge;
//   validate-gpu-Nms /validate of the GPU pod's CREATE under a new name each time, so each one
//                    is charged through the API, whose writes take N ms (WRITE_LATENCY_MS).
// For each case and round: requests per second; the replica's CPU time per request (its process
// CPU clock: all its threads, none of this process's); blocking hand-offs per request (its own
// gpugate_http_blocking_handoffs_total, read before and after); its threads' voluntary context
// switches per request; the API writes (PUT, POST) the stand-in received per request; latency
// p50 and p99; the share of the cores other processes took. Then
// each figure's median over the rounds, every round's figure beside it.
//
// Charges go to namespaces of PER_NAMESPACE pods each (a ResourceQuota of 100,000 GPUs in
// every one, so none is refused), so each write carries a record of at most that many charges
// ("How a namespace's GPUQuota grows"). The replica reconciles once an hour and keeps a charge
// whose pod never appears for an hour, so no reconciliation pass runs inside a measurement.
//
// Environment: ROUNDS (3), REQUESTS per uncharged case (4000), CHARGES per charged case (1000),
// CONNS (8), WRITE_LATENCY_MS ("0 5"), PER_NAMESPACE (50), SERVER_CPU (0), CLIENT_CPU (1): the
// replica's threads and this process's (client and stand-in) are bound to those CPUs; CASES
// ("validate-update mutate-update") runs only those, e.g. under `perf record -p`; DUMP_BODIES=dir
// writes each case's first body there and measures nothing.
#include <httplib.h>
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <latch>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "cluster/bench_env.h"
#include "cluster/replica.h"
#include "cluster/review_cases.h"
#include "cluster/review_figures.h"
#include "standin/standin.h"

namespace gpugate::bench {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

void Require(bool ok, const std::string& what) {
  if (!ok) throw std::runtime_error(what);
}

// What the replica and the machine have used so far.
struct Usage {
  Clock::time_point at;
  double cpu = 0;  // the replica's CPU seconds
  std::map<pid_t, long> switches;
  double busy = 0;  // seconds the machine's cores were busy, all processes
  double self = 0;  // this process's CPU seconds (client and stand-in)
};

// The replica's own counters, from its /metrics.
struct Counters {
  double handoffs = 0;  // gpugate_http_blocking_handoffs_total
  double accepted = 0;  // gpugate_http_connections_accepted_total
};

double BusySeconds() {
  std::ifstream stat("/proc/stat");
  std::string cpu;
  double user, nice, system, idle, iowait, irq, softirq, steal;
  stat >> cpu >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal;
  return (user + nice + system + irq + softirq + steal) / sysconf(_SC_CLK_TCK);
}

double SelfSeconds() {
  rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](timeval t) { return t.tv_sec + t.tv_usec / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// An unlabelled series' value in Prometheus text.
double Series(const std::string& metrics, const std::string& series) {
  const std::string line = "\n" + series + " ";
  size_t at = metrics.find(line);
  Require(at != std::string::npos, "no " + series + " in /metrics");
  return std::stod(metrics.substr(at + line.size()));
}

Usage ReadUsage(const Replica& replica) {
  return {.at = Clock::now(),
          .cpu = replica.CpuTime().count(),
          .switches = replica.VoluntarySwitches(),
          .busy = BusySeconds(),
          .self = SelfSeconds()};
}

// Scraped before a case's first usage reading and after its last, so that the scrape's own
// work is outside the case.
Counters Scrape(Replica& replica) {
  auto metrics = replica.Get("/metrics");
  Require(metrics.has_value(), "the replica's /metrics did not answer");
  return {.handoffs = Series(*metrics, "gpugate_http_blocking_handoffs_total"),
          .accepted = Series(*metrics, "gpugate_http_connections_accepted_total")};
}

// Sends `requests` of the case's bodies over the connections, one thread each, and measures.
Figures Run(Replica& replica, testing::StandInApiServer& api,
            std::vector<std::unique_ptr<httplib::SSLClient>>& clients, const Case& c,
            int requests) {
  auto writes = [&api] { return api.requests("PUT") + api.requests("POST"); };
  const int conns = static_cast<int>(clients.size());
  std::vector<std::vector<double>> latencies(conns);
  std::vector<int> wrong(conns, 0);
  std::latch ready(conns + 1);
  const std::string patch = "\"patch\":";
  // Each connection takes the next request when its last is answered, so the ones in flight
  // are always neighbours: a charged case's pods in flight share a namespace, as a burst's do.
  std::atomic<int> next = 0;
  auto send = [&](int t) {
    ready.arrive_and_wait();
    for (int i; (i = next.fetch_add(1)) < requests;) {
      const std::string& body = c.bodies[i % c.bodies.size()];
      auto start = Clock::now();
      auto res = clients[t]->Post(c.route, body, "application/json");
      latencies[t].push_back(
          std::chrono::duration<double, std::micro>(Clock::now() - start).count());
      bool right = res && res->status == 200 &&
                   res->body.find("\"allowed\":true") != std::string::npos &&
                   (res->body.find(patch) != std::string::npos) == c.patched;
      wrong[t] += !right;
    }
  };
  const Counters countedBefore = Scrape(replica);
  const int writesBefore = writes();
  const Usage before = ReadUsage(replica);
  std::vector<std::thread> threads;
  for (int t = 0; t < conns; ++t) threads.emplace_back(send, t);
  ready.arrive_and_wait();
  for (std::thread& t : threads) t.join();
  const Usage after = ReadUsage(replica);
  const int writesAfter = writes();
  const Counters countedAfter = Scrape(replica);

  std::vector<double> all;
  for (const auto& l : latencies) all.insert(all.end(), l.begin(), l.end());
  const double wall = std::chrono::duration<double>(after.at - before.at).count();
  const double cpu = after.cpu - before.cpu;
  const double others =
      after.busy - before.busy - cpu - (after.self - before.self);  // seconds of cores
  Figures f{.requestsPerSecond = requests / wall,
            .cpuMicrosPerRequest = cpu * 1e6 / requests,
            .handoffsPerRequest = (countedAfter.handoffs - countedBefore.handoffs) / requests,
            .switchesPerRequest =
                static_cast<double>(SwitchesBetween(before.switches, after.switches)) / requests,
            .apiWritesPerRequest = static_cast<double>(writesAfter - writesBefore) / requests,
            .p50Micros = Percentile(all, 0.50),
            .p99Micros = Percentile(all, 0.99),
            .otherPercent = std::max(0.0, others / (wall * sysconf(_SC_NPROCESSORS_ONLN)) * 100)};
  for (int w : wrong) f.wrongAnswers += w;
  // Less the closing scrape's own connection. The clients' are kept alive, and opened again
  // only when the replica closes one (server.keepAliveMaxRequests): a handshake in the figures.
  f.connectionsOpened = static_cast<int>(countedAfter.accepted - countedBefore.accepted) - 1;
  return f;
}

void Pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  Require(sched_setaffinity(0, sizeof set, &set) == 0, "cannot bind to CPU " + std::to_string(cpu));
}

// Charges recorded in the GPUQuota records of every charge namespace used so far.
size_t ChargesRecorded(testing::StandInApiServer& api, const std::vector<std::string>& namespaces) {
  size_t n = 0;
  for (const std::string& ns : namespaces) {
    json record = api.Get("/apis/gpugate.io/v1alpha1/namespaces/" + ns + "/gpuquotas/gpugate");
    if (record.is_object()) n += record["status"].value("charges", json::object()).size();
  }
  return n;
}

// A scratch directory, removed with it.
struct WorkDir {
  WorkDir() {
    char pattern[] = "/tmp/gpugate-review-XXXXXX";
    Require(mkdtemp(pattern) != nullptr, "mkdtemp failed");
    path = pattern;
  }
  ~WorkDir() { std::filesystem::remove_all(path); }
  std::string path;
};

struct Settings {
  int rounds, requests, conns, serverCpu, clientCpu;
  CaseSizes sizes;
  std::set<std::string> only;  // the cases to run; empty: all
};

std::set<std::string> EnvWords(const char* name) {
  const char* v = getenv(name);
  std::istringstream in(v ? v : "");
  std::set<std::string> out;
  for (std::string word; in >> word;) out.insert(word);
  return out;
}

Settings FromEnvironment() {
  return {.rounds = EnvInt("ROUNDS", 3),
          .requests = EnvInt("REQUESTS", 4000),
          .conns = EnvInt("CONNS", 8),
          .serverCpu = EnvInt("SERVER_CPU", 0),
          .clientCpu = EnvInt("CLIENT_CPU", 1),
          .sizes = {.charges = EnvInt("CHARGES", 1000),
                    .perNamespace = std::max(1, EnvInt("PER_NAMESPACE", 50)),
                    .latencies = EnvInts("WRITE_LATENCY_MS", "0 5")},
          .only = EnvWords("CASES")};
}

// Every round's cases; round 0 is the warm-up, a tenth of the size.
std::vector<std::vector<Case>> Rounds(const nlohmann::ordered_json& review, const Settings& s) {
  std::vector<std::vector<Case>> rounds;
  for (int r = 0; r <= s.rounds; ++r) {
    CaseSizes sizes = s.sizes;
    if (r == 0) sizes.charges = std::max(1, sizes.charges / 10);
    rounds.push_back(CasesFor(review, std::string(1, 'r').append(std::to_string(r)), sizes));
  }
  return rounds;
}

// A ResourceQuota of 100,000 GPUs in each namespace a case charges, so none is refused.
std::vector<std::string> LimitChargeNamespaces(testing::StandInApiServer& api,
                                               const std::vector<std::vector<Case>>& rounds) {
  std::vector<std::string> namespaces;
  for (const auto& round : rounds) {
    for (const Case& c : round)
      namespaces.insert(namespaces.end(), c.namespaces.begin(), c.namespaces.end());
  }
  for (const std::string& ns : namespaces) {
    api.Create("/api/v1/namespaces/" + ns + "/resourcequotas",
               {{"apiVersion", "v1"},
                {"kind", "ResourceQuota"},
                {"metadata", {{"name", "gpus"}}},
                {"spec", {{"hard", {{"requests.nvidia.com/gpu", "100000"}}}}}});
  }
  return namespaces;
}

// The replica, ready and bound to `cpu`.
std::unique_ptr<Replica> StartReplica(const std::string& gpugate, const std::string& dir, int cpu) {
  auto started = Replica::Start(gpugate, dir, dir + "/gpugate.yaml", dir + "/gpugate.log");
  Require(started.has_value(), started ? "" : started.error().message);
  std::unique_ptr<Replica> replica = std::move(*started);
  for (auto limit = Clock::now() + std::chrono::seconds(30); !replica->Ready();) {
    Require(Clock::now() < limit, "the replica never became ready");
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  Require(replica->PinTo(cpu), "cannot bind the replica to CPU " + std::to_string(cpu));
  return replica;
}

// `conns` kept-alive connections to the replica, each opened (its handshake done) already.
std::vector<std::unique_ptr<httplib::SSLClient>> Connect(const Replica& replica, int conns) {
  std::vector<std::unique_ptr<httplib::SSLClient>> clients;
  for (int i = 0; i < conns; ++i) {
    clients.push_back(replica.NewClient());
    clients.back()->set_keep_alive(true);  // cpp-httplib closes after each request otherwise
    Require(clients.back()->Get("/healthz") != nullptr, "no connection to the replica");
  }
  return clients;
}

// Writes each case's first body to dir/<case>.json, for measuring one review alone (e.g.
// tests/budget's gpugate_review_cost under callgrind).
int DumpBodies(const std::vector<Case>& cases, const std::string& dir) {
  std::filesystem::create_directories(dir);
  for (const Case& c : cases) std::ofstream(dir + "/" + c.name + ".json") << c.bodies.front();
  return 0;
}

int Main(const std::string& gpugate, const std::string& reviewFile) {
  const Settings s = FromEnvironment();
  Pin(s.clientCpu);  // before any thread starts: the stand-in's and the client's inherit it
  std::ifstream in(reviewFile);
  const auto review = nlohmann::ordered_json::parse(in, nullptr, /*allow_exceptions=*/false);
  Require(review.is_object() && review.contains("request"), reviewFile + ": not a review");
  const std::vector<std::vector<Case>> rounds = Rounds(review, s);
  if (const char* out = getenv("DUMP_BODIES"); out && *out) return DumpBodies(rounds[0], out);

  WorkDir dir;
  auto made = MakeCertificates(gpugate, dir.path);
  Require(made.has_value(), made ? "" : made.error().message);
  testing::StandInApiServer api(
      {.certFile = dir.path + "/tls.crt", .keyFile = dir.path + "/tls.key"});
  const int apiPort = api.Start();
  Require(apiPort > 0, "the stand-in did not start");
  // No reconciliation pass and no charge dropped for its missing pod during the run.
  WriteClusterConfig(dir.path, apiPort, "  reservationGrace: 1h\n  reconcileInterval: 1h\n");
  const std::vector<std::string> namespaces = LimitChargeNamespaces(api, rounds);
  std::unique_ptr<Replica> replica = StartReplica(gpugate, dir.path, s.serverCpu);
  auto clients = Connect(*replica, s.conns);

  printf("# one replica (CPU %d), client and stand-in (CPU %d), %d connections, %s\n", s.serverCpu,
         s.clientCpu, s.conns, reviewFile.c_str());
  PrintHeader();
  std::map<std::string, std::vector<Figures>> byCase;
  std::vector<std::string> order;
  size_t charged = 0;
  for (int r = 0; r <= s.rounds; ++r) {
    for (const Case& c : rounds[r]) {
      const bool charges = !c.namespaces.empty();
      const int n = charges ? static_cast<int>(c.bodies.size())
                            : (r == 0 ? std::max(1, s.requests / 10) : s.requests);
      if (!s.only.empty() && !s.only.contains(c.name)) continue;
      api.SetWriteLatency(std::chrono::milliseconds(c.latencyMs));
      Figures f = Run(*replica, api, clients, c, n);
      charged += charges ? n : 0;
      PrintRow(r == 0 ? "warm-up" : std::to_string(r), c.name, f);
      if (r == 0) continue;
      if (!byCase.contains(c.name)) order.push_back(c.name);
      byCase[c.name].push_back(f);
    }
  }
  printf("\n# charges recorded in the namespaces' GPUQuotas: %zu of %zu charged reviews sent\n",
         ChargesRecorded(api, namespaces), charged);
  PrintMedians(order, byCase);
  return 0;
}

}  // namespace
}  // namespace gpugate::bench

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s GPUGATE REVIEW_JSON\n", argv[0]);
    return 2;
  }
  try {
    return gpugate::bench::Main(argv[1], argv[2]);
  } catch (const std::exception& e) {
    fprintf(stderr, "gpugate_cluster_review: %s\n", e.what());
    return 1;
  }
}
