#include "transport/server.h"

#include <httplib.h>
#include <openssl/err.h>
#include <openssl/ssl.h>

#include <chrono>
#include <thread>

#include "quota/report.h"
#include "review/admission_review.h"
#include "transport/log.h"
#include "transport/tls_context.h"

namespace gpugate::transport {
namespace {

bool IsJsonContentType(const std::string& value) {
  std::string lower;
  for (char c : value) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower.rfind("application/json", 0) == 0;
}

std::string_view DecisionWord(const review::Decision& d) {
  if (!d.allowed) return "denied";
  return d.patch.empty() ? "allowed" : "patched";
}

}  // namespace

Server::Server(ServerOptions options, const admission::Handler& handler)
    : options_(std::move(options)), handler_(handler) {}

Server::~Server() = default;

Status Server::Bind() {
  http_ = std::make_unique<httplib::SSLServer>([this](SSL_CTX& ctx) {
    connections_.Track(ctx);
    Status configured = ConfigureServerTls(ctx, options_.certFile, options_.keyFile);
    if (!configured) tlsError_ = configured.error().message;
    return configured.has_value();
  });
  if (!http_->is_valid()) return Fail(tlsError_.empty() ? "cannot set up TLS" : tlsError_);

  // cpp-httplib's defaults suit a browser, not the apiserver, which keeps connections open and
  // reuses them; transport/tuning.h has the settings and why, including the worker model.
  workers_ = ApplyTuning(*http_, options_.tuning);
  Routes();

  const auto& l = options_.listen;
  if (l.port == 0) {
    port_ = http_->bind_to_any_port(l.host);
  } else {
    port_ = http_->bind_to_port(l.host, l.port) ? l.port : -1;
  }
  if (port_ <= 0) return Fail("cannot listen on " + l.host + ":" + std::to_string(l.port));
  return {};
}

void Server::Routes() {
  auto review = [this](const char* route, bool mutate) {
    return [this, route, mutate](const httplib::Request& req, httplib::Response& res) {
      if (!IsJsonContentType(req.get_header_value("Content-Type"))) {
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
    };
  };
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
    std::string body = metrics_.Render() + RenderWorkerMetrics(workers_->Stats());
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
  for (const char* path : {"/validate", "/mutate"}) {
    http_->Get(path, [](const httplib::Request&, httplib::Response& res) {
      res.status = 405;
      res.set_header("Allow", "POST");
      res.set_content("use POST with an AdmissionReview\n", "text/plain");
    });
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
    ready_ = !stopRequested_;
    if (stopRequested_) StopHttpOnce();
  });
  LogLine("listening").Str("host", options_.listen.host).Int("port", port_).Info();
  http_->listen_after_bind();
  listenReturned = true;
  watcher.join();
  ready_ = false;
}

void Server::Stop() {
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
