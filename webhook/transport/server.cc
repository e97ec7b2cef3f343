#include "transport/server.h"

#include <httplib.h>
#include <openssl/err.h>
#include <openssl/ssl.h>

#include <chrono>
#include <thread>

#include "quota/report.h"
#include "review/admission_review.h"
#include "transport/log.h"
#include "transport/request_checks.h"
#include "transport/request_deadline.h"

namespace gpugate::transport {
namespace {

std::string_view DecisionWord(const review::Decision& d) {
  if (!d.allowed) return "denied";
  return d.patch.empty() ? "allowed" : "patched";
}

}  // namespace

Server::Server(ServerOptions options, const admission::Handler& handler)
    : options_(std::move(options)), handler_(handler) {}

Server::~Server() = default;

Status Server::Bind() {
  auto tls = TlsReloader::Load({.certFile = options_.certFile,
                                .keyFile = options_.keyFile,
                                .clientCaFile = options_.clientCaFile,
                                .reloadInterval = options_.tlsReloadInterval});
  if (!tls) return std::unexpected(tls.error());
  tls_ = std::move(*tls);
  clientAuth_ = std::make_unique<ClientAuth>(ClientAuthPolicy{
      .required = tls_->requestsClientCertificates(), .openPaths = options_.openPaths});
  http_ = std::make_unique<httplib::SSLServer>([this](SSL_CTX& ctx) {
    connections_.Track(ctx);
    tls_->Install(ctx);
    return true;
  });
  if (!http_->is_valid()) return Fail("cannot set up TLS");

  // cpp-httplib's defaults suit a browser, not the apiserver, which keeps connections open and
  // reuses them; transport/tuning.h has the settings and why, including the worker model.
  workers_ = ApplyTuning(*http_, options_.tuning);
  connections_.EnforceDeadlines(
      {.handshake = options_.tuning.handshakeTimeout, .headers = options_.tuning.headerTimeout});
  Routes();

  const auto& l = options_.listen;
  if (l.port == 0) {
    port_ = http_->bind_to_any_port(l.host);
  } else {
    port_ = http_->bind_to_port(l.host, l.port) ? l.port : -1;
  }
  if (port_ <= 0) return Fail("cannot listen on " + l.host + ":" + std::to_string(l.port));
  tls_->StartPolling();
  return {};
}

void Server::Routes() {
  // httplib keeps one pre-routing handler. It runs once a request's headers are read, before its
  // body is: the headers deadline ends, bodies the cap cannot bound are refused unread, then the
  // client-certificate check decides who reaches the routes.
  http_->set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    connections_.HeadersRead(req.ssl);
    if (auto refusal = CheckBodyFraming(req.method, req.has_header("Content-Length"),
                                        req.has_header("Transfer-Encoding"))) {
      res.status = refusal->status;
      res.set_header("Connection", "close");  // its body was never read
      res.set_content(refusal->message, "text/plain");
      return httplib::Server::HandlerResponse::Handled;
    }
    return clientAuth_->Refuse(req, res, metrics_) ? httplib::Server::HandlerResponse::Handled
                                                   : httplib::Server::HandlerResponse::Unhandled;
  });
  auto review = [this](const char* route, bool mutate) {
    return [this, route, mutate](const httplib::Request& req, httplib::Response& res) {
      if (!IsJsonMediaType(req.get_header_value("Content-Type"))) {
        res.status = 415;
        res.set_content("Content-Type must be application/json\n", "text/plain");
        metrics_.CountRequest(route, res.status);
        return;
      }
      auto start = std::chrono::steady_clock::now();
      auto request = review::DecodeReview(req.body);
      if (!request) {
        res.status = 400;
        res.set_content(request.error().message + "\n", "text/plain");
        metrics_.CountRequest(route, res.status);
        LogLine("bad request").Str("route", route).Str("error", request.error().message).Warn();
        return;
      }
      if (req.has_param("timeout")) {  // the API server's ?timeout=, e.g. 5s
        auto timeout = ParseGoDuration(req.get_param_value("timeout"));
        if (!timeout) {
          res.status = 400;
          res.set_content(timeout.error().message + "\n", "text/plain");
          metrics_.CountRequest(route, res.status);
          return;
        }
        request->deadline = start + *timeout;
      }
      review::Decision d = mutate ? handler_.Mutate(*request) : handler_.Validate(*request);
      res.set_content(review::EncodeResponse(*request, d), "application/json");
      auto elapsed = std::chrono::steady_clock::now() - start;
      double seconds = std::chrono::duration<double>(elapsed).count();
      metrics_.CountRequest(route, 200);
      metrics_.CountDecision(route, DecisionWord(d), d.reason);
      metrics_.ObserveLatency(route, seconds);
      LogLine("decision")
          .Str("route", route)
          .Str("uid", request->uid)
          .Str("kind", request->kind.kind)
          .Str("namespace", request->ns)
          .Str("name", request->name)
          .Str("operation", request->operation)
          .Str("decision", DecisionWord(d))
          .Str("reason", d.reason)
          .Str("message", d.message)
          .Int("micros", std::chrono::duration_cast<std::chrono::microseconds>(elapsed).count())
          .Info();
      if (request->deadline && start + elapsed > *request->deadline) {
        LogLine("answered after the caller's deadline")
            .Str("route", route)
            .Str("uid", request->uid)
            .Str("timeout", req.get_param_value("timeout"))
            .Warn();
      }
    };
  };
  // While draining, tell each caller to close the connection after this answer: the API server
  // then opens a new one, which the Service sends to an instance that is not stopping.
  http_->set_post_routing_handler([this](const httplib::Request&, httplib::Response& res) {
    if (draining_) res.set_header("Connection", "close");
  });
  http_->Post("/validate", review("validate", false));
  http_->Post("/mutate", review("mutate", true));
  http_->Get("/healthz", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("ok\n", "text/plain");
  });
  http_->Get("/readyz", [this](const httplib::Request&, httplib::Response& res) {
    const quota::Accounting* ledger = handler_.ledger();
    bool ready = ready_ && (!ledger || ledger->Ready());
    res.status = ready ? 200 : 503;
    res.set_content(ready ? "ok\n" : "not ready\n", "text/plain");
  });
  http_->Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    std::string body = metrics_.Render() + RenderWorkerMetrics(workers_->Stats()) +
                       tls_->RenderMetrics() + clientAuth_->RenderMetrics() +
                       connections_.RenderMetrics();
    if (const quota::Accounting* ledger = handler_.ledger())
      body += quota::UsagePrometheus(ledger->Usage());
    res.set_content(body, "text/plain; version=0.0.4");
  });
  http_->Get("/quota", [this](const httplib::Request& req, httplib::Response& res) {
    const quota::Accounting* ledger = handler_.ledger();
    if (!ledger) {
      res.status = 404;
      res.set_content("quota accounting is off\n", "text/plain");
      return;
    }
    res.set_content(quota::UsageJson(ledger->Usage(req.get_param_value("namespace"))),
                    "application/json");
  });
  // Reviews are POSTs; say so instead of a bare 404 for the other methods.
  auto notPost = [](const httplib::Request&, httplib::Response& res) {
    res.status = 405;
    res.set_header("Allow", "POST");
    res.set_content("use POST with an AdmissionReview\n", "text/plain");
  };
  for (const char* path : {"/validate", "/mutate"}) {
    http_->Get(path, notPost);  // HEAD too
    http_->Put(path, notPost);
    http_->Patch(path, notPost);
    http_->Delete(path, notPost);
    http_->Options(path, notPost);
  }
  http_->set_exception_handler(
      [](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
        res.status = 500;
        res.set_content("internal error\n", "text/plain");
      });
}

void Server::Run() {
  if (stopRequested_) return;
  // httplib's stop() is a no-op until its accept loop runs, so a Stop() that lands before then
  // (a SIGTERM right after start) is applied by this watcher once the loop is up. Both sides use
  // sequentially consistent atomics: either Stop() sees the loop running, or the watcher sees
  // the request.
  std::atomic<bool> listenReturned{false};
  std::thread watcher([this, &listenReturned] {
    while (!http_->is_running() && !listenReturned) std::this_thread::yield();
    if (listenReturned) return;
    ready_ = !stopRequested_ && !draining_;
    if (stopRequested_) StopHttpOnce();
  });
  LogLine("listening").Str("host", options_.listen.host).Int("port", port_).Info();
  http_->listen_after_bind();
  listenReturned = true;
  watcher.join();
  ready_ = false;
}

void Server::BeginDrain() {
  draining_ = true;
  ready_ = false;
}

void Server::Stop() {
  draining_ = true;
  ready_ = false;
  stopRequested_ = true;
  if (http_ && http_->is_running()) StopHttpOnce();
}

void Server::StopHttpOnce() {
  if (httpStopped_.exchange(true)) return;
  http_->stop();  // closes the listener; connections end after their current request
  size_t open = connections_.ShutdownReads();  // without this, idle ones wait out keepAliveIdle
  LogLine("closing connections").Int("open", static_cast<int64_t>(open)).Info();
}

}  // namespace gpugate::transport
