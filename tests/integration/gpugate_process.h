// Test support: runs the real `gpugate` binary as a child process and talks to it over TLS.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "support/temp_dir.h"

namespace httplib {
class SSLClient;
}

namespace gpugate::testing {

struct Exit {
  int code = -1;       // exit status, or -1 when killed by a signal
  std::string output;  // stdout and stderr, interleaved
};

// Runs `gpugate ARGS...` to completion.
Exit RunGpugate(const std::vector<std::string>& args);
// Runs `program ARGS...` to completion; `program` is a path (no PATH search) and its own argv[0].
Exit RunProgram(const std::string& program, const std::vector<std::string>& args);

// `gpugate serve` on 127.0.0.1 with a free port, certificates made by `gpugate certs`.
class GpugateServer {
 public:
  // Starts the server and waits (up to 10 s) until its log says it is listening.
  // `extraArgs` are appended to the serve command line (e.g. {"--config", path}).
  explicit GpugateServer(std::vector<std::string> extraArgs = {});
  ~GpugateServer();

  int port() const { return port_; }
  pid_t pid() const { return pid_; }
  const std::string& caFile() const { return caFile_; }
  // A client that verifies the server certificate against the test CA, with TCP_NODELAY.
  std::unique_ptr<httplib::SSLClient> Client() const;
  // Sends SIGTERM and waits for the exit and the end of its output; returns the exit status.
  int Stop();
  // Sends SIGTERM without waiting; Stop() then only waits for the exit (a second SIGTERM would
  // cut a graceful drain short).
  void Terminate();
  // Sends SIGKILL (no chance to flush or clean up) and waits, as Stop() does.
  void Kill();
  // Everything the server wrote to stdout and stderr so far (JSON log lines).
  std::string Logs();
  // Waits until the logs contain a whole line (its newline arrived) with `needle`; false on
  // timeout or when the process has exited.
  bool WaitForLog(const std::string& needle, std::chrono::milliseconds timeout);

 private:
  // After the exit: waits (up to 10 s) until the drain has read the output to its end, so
  // Logs() holds the last lines the process wrote before it exited.
  void WaitForOutputEnd();

  TempDir dir_;
  std::string caFile_;
  pid_t pid_ = -1;
  bool terminated_ = false;  // SIGTERM sent by Terminate()
  int port_ = 0;
  // A thread drains the child's output so a chatty server never blocks on a full pipe.
  std::thread drain_;
  std::mutex mu_;
  std::condition_variable grew_;
  std::string logs_;  // guarded by mu_
  bool eof_ = false;  // guarded by mu_
};

// Reads a file; fails the current test when it cannot.
std::string ReadFile(const std::string& path);

}  // namespace gpugate::testing
