// The HTTPS front of gpugate: TLS 1.2+, the admission routes, probes and metrics. It reads bytes,
// hands them to the review codec and the admission handler, and writes bytes back; it never sees
// a rule.
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "admission/handler.h"
#include "common/host_port.h"
#include "common/result.h"
#include "transport/metrics.h"

namespace httplib {
class SSLServer;
}

namespace gpugate::transport {

struct ServerOptions {
  HostPort listen{"0.0.0.0", 8443};
  std::string certFile;
  std::string keyFile;
  // An AdmissionReview carries the object and, on UPDATE, the old object; etcd caps an object
  // at 1.5 MiB, so 8 MiB admits every real review and refuses anything absurd before parsing.
  size_t maxBodyBytes = 8 << 20;
  int threads = 64;  // worker threads; each serves one connection at a time
};

class Server {
 public:
  Server(ServerOptions options, const admission::Handler& handler);
  ~Server();

  // Loads the certificate and key and binds the listening socket. Errors name the file or address.
  Status Bind();
  int port() const { return port_; }
  // Serves until Stop(); returns after in-flight requests finish.
  void Run();
  // Thread-safe; may be called from a signal-handling thread.
  void Stop();

  Metrics& metrics() { return metrics_; }

 private:
  void Routes();
  void StopHttpOnce();  // httplib's stop() must run once, after its loop has started

  ServerOptions options_;
  const admission::Handler& handler_;
  Metrics metrics_;
  std::unique_ptr<httplib::SSLServer> http_;
  std::string tlsError_;
  std::atomic<bool> ready_{false};
  // Stop() may come before Run() has entered httplib's accept loop (a signal right after start);
  // httplib's own stop() is a no-op then, so Run() checks this flag once the loop is running.
  std::atomic<bool> stopRequested_{false};
  std::atomic<bool> httpStopped_{false};
  int port_ = 0;
};

}  // namespace gpugate::transport
