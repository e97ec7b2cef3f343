// The audit benchmark (`make bench-audit`, docs/performance.md "gpugate audit on big clusters"):
// a stand-in API server holding N pods (the cluster benchmark's: ~4.7 KB each, 2% GPU pods, one
// in `--bad-every` of them with a fractional GPU the rules refuse), and `gpugate audit` run
// against it once per chunk size, side by side in one run: paged (500, the default) and in one
// answer per collection (0). For each run it reports the wall time, the audit's peak RSS
// (ru_maxrss from wait4, in a process forked before the stand-in was loaded: see Spawner), and
// the objects and findings the audit's JSON summary counts, which must be every pod and every
// refused one.
//
//   gpugate_audit_bench --gpugate build-bench/webhook/gpugate [--pods 10000,100000]
//                       [--chunk-sizes 500,0] [--bad-every 1000] [--pod bench/cluster/pod.json]
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <vector>

#include "replica.h"
#include "standin/standin.h"
#include "synthetic_cluster.h"

namespace gpugate::bench {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

struct Options {
  std::string gpugate;
  std::vector<size_t> pods = {10000, 100000};
  std::vector<size_t> chunkSizes = {500, 0};
  size_t badEvery = 1000;
  std::string podFile = "bench/cluster/pod.json";
};

struct Run {
  size_t pods = 0, chunkSize = 0;
  double seconds = 0, peakRssMiB = 0;
  size_t objects = 0, denied = 0;
  std::string error;
};

[[noreturn]] void Usage(const std::string& why) {
  std::cerr << why << "\n"
            << "usage: gpugate_audit_bench --gpugate PATH [--pods N,N,...] "
               "[--chunk-sizes N,N,...] [--bad-every N] [--pod FILE]\n";
  std::exit(2);
}

Options ParseArgs(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (i + 1 >= argc) Usage(flag + " needs a value");
    std::string value = argv[++i];
    if (flag == "--gpugate") {
      o.gpugate = value;
    } else if (flag == "--pods") {
      o.pods = ParseCounts(value);
    } else if (flag == "--chunk-sizes") {
      o.chunkSizes = ParseCounts(value);
    } else if (flag == "--bad-every") {
      o.badEvery = std::stoul(value);
    } else if (flag == "--pod") {
      o.podFile = value;
    } else {
      Usage("unknown flag " + flag);
    }
  }
  if (o.gpugate.empty()) Usage("give --gpugate");
  return o;
}

// Starts `gpugate audit` runs from a small process of its own, forked before the stand-in is
// loaded: a child's ru_maxrss counts its time between fork and exec, when it holds a copy of its
// parent's pages, so a child forked from this process (the stand-in holds gigabytes of pods)
// would report the stand-in's memory as its own. The spawner's own few MiB are the floor.
class Spawner {
 public:
  Spawner() {
    int toSpawner[2], fromSpawner[2];
    if (pipe(toSpawner) != 0 || pipe(fromSpawner) != 0) Usage("pipe failed");
    pid_ = fork();
    if (pid_ == 0) {
      close(toSpawner[1]);
      close(fromSpawner[0]);
      Serve(toSpawner[0], fromSpawner[1]);
      _exit(0);
    }
    close(toSpawner[0]);
    close(fromSpawner[1]);
    requests_ = fdopen(toSpawner[1], "w");
    answers_ = fdopen(fromSpawner[0], "r");
  }
  ~Spawner() {
    std::fclose(requests_);  // the spawner reads EOF and exits
    std::fclose(answers_);
    waitpid(pid_, nullptr, 0);
  }

  // Runs `gpugate audit --kubeconfig K --chunk-size C -o json > out`: its exit status and peak
  // RSS in KiB, or false when it could not be run.
  bool Run(const std::string& gpugate, const std::string& kubeconfig, size_t chunk,
           const std::string& out, int& status, long& maxRssKiB) {
    std::fprintf(requests_, "%s\n%s\n%zu\n%s\n", gpugate.c_str(), kubeconfig.c_str(), chunk,
                 out.c_str());
    std::fflush(requests_);
    return std::fscanf(answers_, "%d %ld", &status, &maxRssKiB) == 2 && status >= 0;
  }

 private:
  static void Serve(int in, int out) {
    FILE* requests = fdopen(in, "r");
    FILE* answers = fdopen(out, "w");
    char gpugate[4096], kubeconfig[4096], chunk[64], path[4096];
    auto line = [&](char* buffer, int size) {
      if (!std::fgets(buffer, size, requests)) return false;
      buffer[std::strcspn(buffer, "\n")] = '\0';
      return true;
    };
    while (line(gpugate, sizeof gpugate) && line(kubeconfig, sizeof kubeconfig) &&
           line(chunk, sizeof chunk) && line(path, sizeof path)) {
      pid_t pid = fork();
      if (pid == 0) {
        if (!std::freopen(path, "w", stdout)) _exit(127);
        execl(gpugate, gpugate, "audit", "--kubeconfig", kubeconfig, "--chunk-size", chunk, "-o",
              "json", static_cast<char*>(nullptr));
        _exit(127);
      }
      int status = 0;
      rusage usage{};
      bool ran = pid > 0 && wait4(pid, &status, 0, &usage) == pid && WIFEXITED(status);
      std::fprintf(answers, "%d %ld\n", ran ? WEXITSTATUS(status) : -1, usage.ru_maxrss);
      std::fflush(answers);
    }
  }

  pid_t pid_ = -1;
  FILE* requests_ = nullptr;
  FILE* answers_ = nullptr;
};

Run Audit(Spawner& spawner, const Options& o, const std::string& work, size_t pods,
          size_t chunkSize) {
  Run run{.pods = pods, .chunkSize = chunkSize};
  const std::string out = work + "/audit.json";
  auto started = Clock::now();
  int status = 0;
  long maxRssKiB = 0;
  if (!spawner.Run(o.gpugate, work + "/kubeconfig", chunkSize, out, status, maxRssKiB)) {
    run.error = "could not run gpugate";
    return run;
  }
  run.seconds = std::chrono::duration<double>(Clock::now() - started).count();
  run.peakRssMiB = maxRssKiB / 1024.0;  // ru_maxrss is in KiB on Linux
  std::ifstream in(out);
  json report = json::parse(in, nullptr, false);
  if (!report.is_object()) {
    run.error = "gpugate audit failed (exit status " + std::to_string(status) + ")";
    return run;
  }
  run.objects = report["summary"]["objects"].get<size_t>();
  run.denied = report["summary"]["findings"]["deny"].get<size_t>();
  return run;
}

// Every `badEvery`-th pod asks for half a GPU: two findings each (its limit and its request).
void SpoilPods(testing::StandInApiServer& api, size_t pods, size_t badEvery) {
  for (size_t i = 0; i < pods; i += badEvery) {
    std::string path =
        "/api/v1/namespaces/ns-" + std::to_string(i / 100) + "/pods/" + SyntheticCluster::Name(i);
    json pod = api.Get(path);
    json& resources = pod["spec"]["containers"][0]["resources"];
    resources["limits"]["nvidia.com/gpu"] = "500m";
    resources["requests"]["nvidia.com/gpu"] = "500m";
    api.Update(path, pod);
  }
}

int Main(const Options& o) {
  Spawner spawner;  // first, while this process is small
  const std::string work =
      std::filesystem::temp_directory_path() / ("gpugate-audit-bench-" + std::to_string(getpid()));
  std::filesystem::create_directories(work);
  std::ifstream podFile(o.podFile);
  json pod = json::parse(podFile, nullptr, false);
  if (!pod.is_object()) Usage("cannot read a Pod from " + o.podFile);
  if (auto made = MakeCertificates(o.gpugate, work); !made) Usage(made.error().message);
  std::vector<Run> runs;
  for (size_t pods : o.pods) {
    testing::StandInApiServer api({.certFile = work + "/tls.crt", .keyFile = work + "/tls.key"});
    int port = api.Start();
    if (port < 0) Usage("the stand-in did not start");
    SyntheticCluster cluster(api, pod, {.pods = pods});
    if (cluster.Load() != pods) Usage("the stand-in did not take every pod");
    SpoilPods(api, pods, o.badEvery);
    WriteClusterConfig(work, port);
    for (size_t chunk : o.chunkSizes) {
      runs.push_back(Audit(spawner, o, work, pods, chunk));
      const Run& r = runs.back();
      std::cerr << "# " << pods << " pods, chunk size " << chunk << ": "
                << (r.error.empty() ? std::to_string(r.peakRssMiB) + " MiB" : r.error) << "\n";
    }
  }
  std::filesystem::remove_all(work);
  std::printf("| pods | --chunk-size | seconds | peak RSS (MiB) | objects | deny findings |\n");
  std::printf("|---:|---:|---:|---:|---:|---:|\n");
  bool failed = false;
  for (const Run& r : runs) {
    size_t wantDenied = 2 * ((r.pods + o.badEvery - 1) / o.badEvery);
    bool complete = r.error.empty() && r.objects == r.pods && r.denied == wantDenied;
    failed |= !complete;
    std::printf("| %zu | %zu | %.2f | %.1f | %zu | %zu%s |\n", r.pods, r.chunkSize, r.seconds,
                r.peakRssMiB, r.objects, r.denied, complete ? "" : " (INCOMPLETE)");
  }
  return failed ? 1 : 0;
}

}  // namespace
}  // namespace gpugate::bench

int main(int argc, char** argv) {
  return gpugate::bench::Main(gpugate::bench::ParseArgs(argc, argv));
}
