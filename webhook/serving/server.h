// gpugate's webhook application over the HTTPS server (transport/event_server.h): the routes
// (/validate, /mutate, /quota, /usage, /metrics, /healthz, /readyz), who may call them (client
// certificates), readiness and the graceful stop. Reviews go to review_route.h.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "admission/handler.h"
#include "common/host_port.h"
#include "common/result.h"
#include "serving/metrics.h"
#include "serving/review_route.h"
#include "tls/openssl_ptr.h"
#include "transport/client_auth.h"
#include "transport/event_server.h"
#include "transport/tls_reloader.h"
#include "transport/tuning.h"

namespace gpugate::serving {

struct ServerOptions {
  HostPort listen{"0.0.0.0", 8443};
  std::string certFile;
  std::string keyFile;
  std::string clientCaFile;            // "" = callers need no certificate (client_auth.h)
  std::vector<std::string> openPaths;  // with clientCaFile: paths answered without one too
  std::chrono::milliseconds tlsReloadInterval = std::chrono::seconds(10);  // tls_reloader.h
  transport::Tuning tuning;  // keep-alive, deadlines, body cap, threads (transport/tuning.h)
};

class Server {
 public:
  // `handler` must outlive the server.
  Server(ServerOptions options, const admission::Handler& handler);

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
  transport::HeadVerdict ScreenHead(const transport::Request& req, transport::Response& res);
  // The routes.
  void Route(const transport::Request& req, transport::Response& res);
  // GET /metrics and /quota (the ledger's holdings and, with usage kept, each namespace's spend
  // this period: usage/spend_report.h).
  void RenderMetrics(transport::Response& res) const;
  void RenderQuota(const transport::Request& req, transport::Response& res) const;
  // GET /usage: the usage report of the query's period (or since/until), by and namespace
  // (usage/report_query.h), written as its format asks: json (the default), table, csv or svg
  // (usage/report_format.h); 400 with the reason for a bad query.
  void RenderUsage(const transport::Request& req, transport::Response& res) const;
  // The ledger's clock (an injected one in tests), to the second.
  std::chrono::sys_seconds Now() const;

  ServerOptions options_;
  const admission::Handler& handler_;
  Metrics metrics_;
  const ReviewRoute reviews_{handler_, metrics_};
  // Set by Bind, and declared before http_ so that they outlive it.
  std::unique_ptr<transport::TlsReloader> tls_;        // the certificates
  std::unique_ptr<transport::ClientAuth> clientAuth_;  // who may call which path
  tls::SslCtxPtr ctx_;                                 // what connections are made from
  std::unique_ptr<transport::EventServer> http_;
  std::atomic<bool> ready_{false};
  std::atomic<bool> draining_{false};  // BeginDrain or Stop was called
  int port_ = 0;
};

}  // namespace gpugate::serving
