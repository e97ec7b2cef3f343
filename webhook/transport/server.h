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
#include "transport/open_connections.h"
#include "transport/tuning.h"
#include "transport/worker_pool.h"

namespace httplib {
class SSLServer;
}

namespace gpugate::transport {

struct ServerOptions {
  HostPort listen{"0.0.0.0", 8443};
  std::string certFile;
  std::string keyFile;
  Tuning tuning;  // keep-alive, timeouts, body cap, workers (transport/tuning.h)
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
  OpenConnections connections_;  // http_'s TLS connections, ended by Stop; outlives http_
  std::unique_ptr<httplib::SSLServer> http_;
  std::shared_ptr<WorkerPool> workers_;  // serves http_'s connections; set by Bind
  std::string tlsError_;
  std::atomic<bool> ready_{false};
  // Stop() may come before Run() has entered httplib's accept loop (a signal right after start);
  // httplib's own stop() is a no-op then, so Run() checks this flag once the loop is running.
  std::atomic<bool> stopRequested_{false};
  std::atomic<bool> httpStopped_{false};
  int port_ = 0;
};

}  // namespace gpugate::transport
