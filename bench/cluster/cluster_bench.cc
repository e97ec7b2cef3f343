// The cluster benchmark (`make bench-cluster`, docs/performance.md "Cluster mode on big
// clusters"): a stand-in API server holding N pods (~4.7 KB each, 2% GPU pods) and one real
// `gpugate serve` replica in cluster mode syncing from it, for each gpugate binary given, one
// after another on a freshly loaded stand-in. For each it reports the time from start to
// /readyz 200, the replica's peak RSS (VmHWM: the stand-in runs in this process, not the
// replica's), and how many pod watch events the replica handles per second of its own CPU time.
//
//   gpugate_cluster_bench --replica base=/tmp/base/gpugate --replica paged=build-bench/gpugate
//                         [--pods 10000,30000,100000] [--events 10000] [--pod
//                         bench/cluster/pod.json]
#include <signal.h>
#include <stdlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "replica.h"
#include "standin/standin.h"
#include "synthetic_cluster.h"

namespace gpugate::bench {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

struct Options {
  std::vector<std::pair<std::string, std::string>> replicas;  // label, binary
  std::vector<size_t> pods = {10000, 30000, 100000};
  size_t events = 10000;
  size_t gpuEvery = 50;
  std::string podFile = "bench/cluster/pod.json";
  std::string csv;
};

struct Figures {
  size_t pods = 0;
  std::string label;
  double readySeconds = 0;
  double peakRssMiB = 0;
  double eventsPerCpuSecond = 0;
  std::string error;
};

[[noreturn]] void Usage(const std::string& why) {
  std::cerr << why << "\n"
            << "usage: gpugate_cluster_bench --replica LABEL=GPUGATE [--replica ...] "
               "[--pods N,N,...] [--events N] [--gpu-every N] [--pod FILE] [--csv FILE]\n";
  std::exit(2);
}

Options ParseArgs(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (i + 1 >= argc) Usage(flag + " needs a value");
    std::string value = argv[++i];
    if (flag == "--replica") {
      size_t eq = value.find('=');
      if (eq == std::string::npos) Usage("--replica takes LABEL=PATH");
      o.replicas.emplace_back(value.substr(0, eq), value.substr(eq + 1));
    } else if (flag == "--pods") {
      o.pods = ParseCounts(value);
    } else if (flag == "--events") {
      o.events = std::stoul(value);
    } else if (flag == "--gpu-every") {
      o.gpuEvery = std::stoul(value);
    } else if (flag == "--pod") {
      o.podFile = value;
    } else if (flag == "--csv") {
      o.csv = value;
    } else {
      Usage("unknown flag " + flag);
    }
  }
  if (o.replicas.empty()) Usage("give at least one --replica");
  return o;
}

template <typename F>
bool WaitUntil(F done, std::chrono::seconds timeout) {
  auto deadline = Clock::now() + timeout;
  while (!done()) {
    if (Clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

// nvidia.com/gpu used in `ns` as the replica's /quota reports it; -1 without an answer.
double UsedGpus(Replica& replica, const std::string& ns) {
  int status = 0;
  auto body = replica.Get("/quota?namespace=" + ns, &status);
  if (!body || status != 200) return -1;
  json quota = json::parse(*body, nullptr, false);
  if (!quota.is_object()) return -1;
  for (const json& entry : quota.value("namespaces", json::array())) {
    return entry["resources"].value("nvidia.com/gpu", json::object()).value("used", 0.0);
  }
  return 0;
}

class Bench {
 public:
  Bench(Options options, std::string work) : o_(std::move(options)), work_(std::move(work)) {}

  int Run() {
    std::ifstream podFile(o_.podFile);
    pod_ = json::parse(podFile, nullptr, false);
    if (!pod_.is_object()) Usage("cannot read a Pod from " + o_.podFile);
    if (auto made = MakeCertificates(o_.replicas[0].second, work_); !made) {
      Usage(made.error().message);
    }
    std::vector<Figures> all;
    for (size_t pods : o_.pods) {
      for (const auto& [label, binary] : o_.replicas) {
        all.push_back(Measure(pods, label, binary));
        Print(all.back());
      }
    }
    Table(all);
    for (const Figures& f : all) {
      if (!f.error.empty()) return 1;
    }
    return 0;
  }

 private:
  Figures Measure(size_t pods, const std::string& label, const std::string& binary) {
    Figures f{pods, label};
    // History enough for every event to reach the watch without a relist.
    testing::StandInApiServer api({.certFile = work_ + "/tls.crt",
                                   .keyFile = work_ + "/tls.key",
                                   .historyLimit = o_.events + 10000,
                                   .idleConnectionTimeout = std::chrono::seconds(90)});
    int port = api.Start();
    if (port < 0) return Failed(f, "the stand-in did not start");
    SyntheticCluster cluster(api, pod_, {.pods = pods, .gpuEvery = o_.gpuEvery});
    auto loadStart = Clock::now();
    if (cluster.Load() != pods) return Failed(f, "the stand-in did not take every pod");
    std::cerr << "# " << pods << " pods loaded in "
              << std::chrono::duration<double>(Clock::now() - loadStart).count() << " s\n";
    WriteClusterConfig(work_, port);

    auto started = Clock::now();
    std::string log = work_ + "/" + label + "-" + std::to_string(pods) + ".log";
    auto replica = Replica::Start(binary, work_, work_ + "/gpugate.yaml", log);
    if (!replica) return Failed(f, replica.error().message);
    Replica& r = **replica;
    if (!WaitUntil([&] { return r.Ready() || !r.Alive(); }, std::chrono::minutes(15)) ||
        !r.Alive()) {
      return Failed(f, "never ready (see " + log + ")");
    }
    f.readySeconds = std::chrono::duration<double>(Clock::now() - started).count();
    // Settled: the reconciler has charged every GPU pod.
    if (!WaitUntil([&] { return api.requests("POST") >= int(cluster.GpuNamespaces()); },
                   std::chrono::minutes(5))) {
      return Failed(f, "the reconciler did not record every namespace's charges");
    }
    std::this_thread::sleep_for(std::chrono::seconds(2));

    // Watch events: the changes, then the deletion of a charged GPU pod, which wakes the
    // reconciler at once: when its charge is gone, the replica has handled every event before.
    double before = UsedGpus(r, "ns-0");
    auto cpuBefore = r.CpuTime();
    size_t events = cluster.Touch(o_.events);
    events += api.Delete("/api/v1/namespaces/ns-0/pods/" + SyntheticCluster::Name(0)) ? 1 : 0;
    if (!WaitUntil([&] { return UsedGpus(r, "ns-0") == before - 1; }, std::chrono::minutes(5))) {
      return Failed(f, "the replica never released the deleted pod's charge");
    }
    auto cpu = (r.CpuTime() - cpuBefore).count();
    f.eventsPerCpuSecond = cpu > 0 ? events / cpu : 0;
    f.peakRssMiB = r.PeakRssBytes() / (1024.0 * 1024.0);
    return f;
  }

  Figures Failed(Figures f, std::string why) {
    f.error = std::move(why);
    return f;
  }

  static void Print(const Figures& f) {
    std::cerr << "# " << f.pods << " pods, " << f.label << ": ";
    if (!f.error.empty()) {
      std::cerr << "FAILED: " << f.error << "\n";
      return;
    }
    std::fprintf(stderr, "ready %.2f s, peak RSS %.1f MiB, %.0f events/s per core\n",
                 f.readySeconds, f.peakRssMiB, f.eventsPerCpuSecond);
  }

  void Table(const std::vector<Figures>& all) {
    std::ofstream csv;
    if (!o_.csv.empty()) {
      csv.open(o_.csv);
      csv << "pods,replica,ready_s,peak_rss_mib,events_per_cpu_s\n";
    }
    std::printf("| pods | replica | ready (s) | peak RSS (MiB) | watch events/s per core |\n");
    std::printf("|---:|---|---:|---:|---:|\n");
    std::map<size_t, const Figures*> first;  // the first replica's figures, per cluster size
    for (const Figures& f : all) {
      if (!f.error.empty()) {
        std::printf("| %zu | %s | failed: %s | | |\n", f.pods, f.label.c_str(), f.error.c_str());
        continue;
      }
      std::printf("| %zu | %s | %.2f | %.1f | %.0f |\n", f.pods, f.label.c_str(), f.readySeconds,
                  f.peakRssMiB, f.eventsPerCpuSecond);
      if (csv.is_open()) {
        csv << f.pods << "," << f.label << "," << f.readySeconds << "," << f.peakRssMiB << ","
            << f.eventsPerCpuSecond << "\n";
      }
      first.try_emplace(f.pods, &f);
    }
    if (o_.replicas.size() < 2) return;
    std::printf("\nRatios, each replica to %s (lower is better for ready and RSS):\n\n",
                o_.replicas[0].first.c_str());
    std::printf(
        "| pods | replica | ready | peak RSS | events/s per core |\n|---:|---|---:|---:|---:|\n");
    for (const Figures& f : all) {
      auto base = first.find(f.pods);
      if (!f.error.empty() || base == first.end() || base->second == &f ||
          base->second->label != o_.replicas[0].first) {
        continue;
      }
      const Figures& b = *base->second;
      std::printf("| %zu | %s | %.2f | %.3f | %.2f |\n", f.pods, f.label.c_str(),
                  f.readySeconds / b.readySeconds, f.peakRssMiB / b.peakRssMiB,
                  f.eventsPerCpuSecond / b.eventsPerCpuSecond);
    }
  }

  Options o_;
  std::string work_;
  json pod_;
};

}  // namespace
}  // namespace gpugate::bench

int main(int argc, char** argv) {
  signal(SIGPIPE, SIG_IGN);
  auto options = gpugate::bench::ParseArgs(argc, argv);
  std::string pattern = (std::filesystem::temp_directory_path() / "gpugate-bench-XXXXXX").string();
  if (!mkdtemp(pattern.data())) return 1;
  int code = gpugate::bench::Bench(std::move(options), pattern).Run();
  if (code == 0) {
    std::filesystem::remove_all(pattern);
  } else {
    std::cerr << "# the replicas' logs are in " << pattern << "\n";
  }
  return code;
}
