// The HTTPS front of gpugate: TLS 1.2+, the admission routes, probes and metrics. It reads bytes,
// hands them to the review codec and the admission handler, and writes bytes back; it never sees
// a rule.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "admission/handler.h"
#include "common/host_port.h"
#include "common/result.h"
#include "transport/client_auth.h"
#include "transport/event_server.h"
#include "transport/metrics.h"
#include "transport/tls_reloader.h"
#include "transport/tuning.h"

namespace gpugate::transport {

struct ServerOptions {
  HostPort listen{"0.0.0.0", 8443};
  std::string certFile;
  std::string keyFile;
  std::string clientCaFile;            // "" = callers need no certificate (client_auth.h)
  std::vector<std::string> openPaths;  // with clientCaFile: paths answered without one too
  std::chrono::milliseconds tlsReloadInterval = std::chrono::seconds(10);  // tls_reloader.h
  Tuning tuning;  // keep-alive, deadlines, body cap, threads (transport/tuning.h)
};

class Server {
 public:
  Server(ServerOptions options, const admission::Handler& handler);
  ~Server();

  // Loads the certificate and key (and client CA), binds the listening socket and starts
  // watching the TLS files for changes. Errors name the file or address.
  Status Bind();
  int port() const { return port_; }
  // Serves until Stop(); returns after in-flight requests finish and every connection closed.
  void Run();
  // The first step of a graceful stop, while load balancers take this instance out: /readyz
  // answers 503 and every answer carries `Connection: close`, so callers move their kept-alive
  // connections elsewhere, but reviews are still served and the listener stays open. Stop()
  // follows. Thread-safe.
  void BeginDrain();
  // Closes the listener, ends idle connections and returns from Run() once in-flight requests
  // are answered. Thread-safe; may be called from a signal-handling thread, before Run() too.
  void Stop();

  Metrics& metrics() { return metrics_; }

 private:
  // Before the body is read: refuses what may not be read (client certificates).
  bool CheckHead(const Request& req, Response& res);
  // The routes.
  void Route(const Request& req, Response& res);
  // Decodes the review; decides it at once, or in Response::blocking when it may wait.
  void Review(const Request& req, Response& res, bool mutate);
  struct Pending {  // what Decide needs of the HTTP request, whose head may be gone by then
    const char* route;
    std::chrono::steady_clock::time_point start;
    std::string timeout;  // ?timeout= as sent; "" when absent
    std::optional<std::chrono::steady_clock::time_point> callerDeadline;
  };
  void Decide(const review::AdmissionRequest& request, const Pending& pending, bool mutate,
              Response& res);

  ServerOptions options_;
  const admission::Handler& handler_;
  Metrics metrics_;
  std::unique_ptr<TlsReloader> tls_;        // the certificates, set by Bind; outlives http_
  std::unique_ptr<ClientAuth> clientAuth_;  // set by Bind; outlives http_
  SSL_CTX* ctx_ = nullptr;                  // set by Bind; outlives http_
  std::unique_ptr<EventServer> http_;       // set by Bind
  std::atomic<bool> ready_{false};
  std::atomic<bool> draining_{false};  // BeginDrain or Stop was called
  int port_ = 0;
};

}  // namespace gpugate::transport
