// One `gpugate serve` replica for the cluster benchmark: a child process of any gpugate binary
// (this tree's, or a build of an earlier commit), its port read from its log, probed over TLS, and
// measured from /proc: peak RSS (VmHWM) and CPU time (utime + stime).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"

namespace httplib {
class SSLClient;
}

namespace gpugate::bench {

class Replica {
 public:
  // Starts `binary serve --listen 127.0.0.1:0 --tls-cert ... --config config`, its output to
  // `logFile`, and waits (up to 30 s) for its log to name its port.
  static Result<std::unique_ptr<Replica>> Start(const std::string& binary,
                                                const std::string& certDir,
                                                const std::string& config,
                                                const std::string& logFile);
  ~Replica();  // SIGTERM, and waits

  pid_t pid() const { return pid_; }
  int port() const { return port_; }
  // A client of its own (TLS, verifying the replica's certificate), for callers that need
  // connections in parallel; Get() shares one.
  std::unique_ptr<httplib::SSLClient> NewClient() const;
  // GET `path` over TLS; nullopt when there is no answer. `status` receives the status code.
  std::optional<std::string> Get(const std::string& path, int* status = nullptr);
  // /readyz answers 200.
  bool Ready();
  // Peak resident memory since the start (VmHWM), in bytes; 0 when /proc cannot be read.
  long PeakRssBytes() const;
  // User and system CPU time used so far by all its threads, those that have exited included
  // (the process's CPU clock, in nanoseconds; /proc's clock ticks where that clock is refused).
  std::chrono::duration<double> CpuTime() const;
  // Voluntary context switches (a thread that slept: on a socket, a lock, a condition) of each
  // thread alive now, by thread id (/proc/PID/task/TID/status). A thread that exits takes its
  // count with it, so compare two readings thread by thread (SwitchesBetween).
  std::map<pid_t, long> VoluntarySwitches() const;
  // Binds every thread alive now to `cpu`; threads they start later inherit it. False when a
  // thread could not be bound.
  bool PinTo(int cpu) const;
  // Whether the process still runs (one that has exited is reaped).
  bool Alive();

 private:
  Replica() = default;
  pid_t pid_ = -1;
  int port_ = 0;
  std::string caFile_;
  std::unique_ptr<httplib::SSLClient> client_;
};

// `gpugate certs --out dir --host 127.0.0.1` with `binary`: the CA, and the serving pair every
// replica and the stand-in use.
Status MakeCertificates(const std::string& binary, const std::string& dir);

// dir/kubeconfig for the stand-in at `apiPort` (its CA is dir/ca.crt, its token the stand-in's),
// and dir/gpugate.yaml in cluster mode with it; `extraCluster` is more of the cluster: section
// ("  reconcileInterval: 1s\n").
void WriteClusterConfig(const std::string& dir, int apiPort, const std::string& extraCluster = "");

// The voluntary switches made between two VoluntarySwitches() readings: by the threads alive at
// both, and all of those of threads started in between.
long SwitchesBetween(const std::map<pid_t, long>& before, const std::map<pid_t, long>& after);

// A flag's comma-separated counts: "10000,30000" -> {10000, 30000}.
std::vector<size_t> ParseCounts(const std::string& text);

}  // namespace gpugate::bench
