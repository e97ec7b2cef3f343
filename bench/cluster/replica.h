// Benchmark support: a real `gpugate serve` replica (any build of it, so a change can be measured
// beside an earlier commit's binary) in cluster mode against a stand-in API server, with the
// figures a benchmark reads off it: its port, /readyz, CPU time and peak RSS.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace httplib {
class SSLClient;
}

namespace gpugate::bench {

// A scratch directory with certificates from `gpugate certs` (CA, serving pair for 127.0.0.1),
// a kubeconfig for the stand-in at `apiPort`, and a gpugate.yaml in cluster mode.
class ClusterFiles {
 public:
  // `extraCluster`: more lines of the config's cluster: section ("  reconcileInterval: 1s\n").
  ClusterFiles(const std::string& gpugate, const std::string& extraCluster = "");
  ~ClusterFiles();
  // Writes the kubeconfig once the stand-in's port is known.
  void PointAt(int apiPort) const;
  std::string File(const std::string& name) const { return dir_ + "/" + name; }
  const std::string& gpugate() const { return gpugate_; }

 private:
  std::string gpugate_;
  std::string dir_;
};

class Replica {
 public:
  // Starts `gpugate serve --config gpugate.yaml` on a free port; throws std::runtime_error when
  // it does not report listening within 30 s.
  explicit Replica(const ClusterFiles& files);
  ~Replica();  // SIGTERM, then SIGKILL after 10 s

  int port() const { return port_; }
  pid_t pid() const { return pid_; }
  std::unique_ptr<httplib::SSLClient> Client() const;
  // Polls /readyz until 200 or `limit` passes; the time it took, or -1 ms.
  std::chrono::milliseconds WaitReady(std::chrono::milliseconds limit) const;
  // User plus system CPU time so far, from /proc/PID/stat.
  std::chrono::milliseconds CpuTime() const;
  // Peak resident set size so far (VmHWM), in KiB.
  long PeakRssKib() const;

 private:
  std::string caFile_;
  pid_t pid_ = -1;
  int output_ = -1;  // the child's stdout and stderr
  int port_ = 0;
};

}  // namespace gpugate::bench
