#include "transport/server.h"

#include <openssl/ssl.h>

#include <algorithm>
#include <chrono>

#include "common/go_duration.h"
#include "quota/report.h"
#include "review/admission_review.h"
#include "transport/log.h"
#include "transport/tls_context.h"

namespace gpugate::transport {
namespace {

using Clock = std::chrono::steady_clock;

std::string_view DecisionWord(const review::Decision& d) {
  if (!d.allowed) return "denied";
  return d.patch.empty() ? "allowed" : "patched";
}

// What rules in warn and audit mode found, for the log: what an operator reads before switching
// a namespace to deny, where the API server's audit log is out of reach. Nothing when empty.
void LogNotes(const review::Decision& d, LogLine& line) {
  auto join = [](auto begin, auto end, auto render) {
    std::string out;
    for (auto it = begin; it != end; ++it) out += (out.empty() ? "" : " | ") + render(*it);
    return out;
  };
  if (!d.violated.empty()) {
    line.Str("violated", join(d.violated.begin(), d.violated.end(),
                              [](const auto& v) { return v.rule + "=" + v.mode; }));
  }
  // Every finding whole, in every mode: warnings may carry only a short form or a count.
  if (!d.findings.empty()) {
    line.Str("findings",
             join(d.findings.begin(), d.findings.end(), [](const review::LoggedFinding& f) {
               return f.mode + " " + f.rule + ": " + f.message;
             }));
  }
  if (!d.warnings.empty()) {
    line.Str("warnings",
             join(d.warnings.begin(), d.warnings.end(), [](const std::string& w) { return w; }));
  }
  if (!d.auditAnnotations.empty()) {
    line.Str("auditAnnotations",
             join(d.auditAnnotations.begin(), d.auditAnnotations.end(),
                  [](const review::AuditAnnotation& a) { return a.key + ": " + a.value; }));
  }
}

}  // namespace

Server::Server(ServerOptions options, const admission::Handler& handler)
    : options_(std::move(options)), handler_(handler) {}

Server::~Server() {
  http_.reset();
  if (ctx_) SSL_CTX_free(ctx_);
}

Status Server::Bind() {
  auto tls = TlsReloader::Load({.certFile = options_.certFile,
                                .keyFile = options_.keyFile,
                                .clientCaFile = options_.clientCaFile,
                                .reloadInterval = options_.tlsReloadInterval});
  if (!tls) return std::unexpected(tls.error());
  tls_ = std::move(*tls);
  clientAuth_ = std::make_unique<ClientAuth>(ClientAuthPolicy{
      .required = tls_->requestsClientCertificates(), .openPaths = options_.openPaths});
  ctx_ = SSL_CTX_new(TLS_server_method());
  if (!ctx_) return Fail("cannot set up TLS");
  ConfigureServerProtocol(*ctx_);
  tls_->Install(*ctx_);

  // The server's keep-alive, deadlines and threads are in transport/tuning.h, with the reasons.
  http_ = std::make_unique<EventServer>(
      options_.tuning, *ctx_,
      [this](const Request& req, Response& res) { return CheckHead(req, res); },
      [this](const Request& req, Response& res) { Route(req, res); });
  auto port = http_->Listen(options_.listen);
  if (!port) return std::unexpected(port.error());
  port_ = *port;
  tls_->StartPolling();
  return {};
}

bool Server::CheckHead(const Request& req, Response& res) {
  return clientAuth_->Refuse(req.head.path, req.ssl, res, metrics_);
}

void Server::Route(const Request& req, Response& res) {
  const std::string_view path = req.head.path;
  const std::string_view method = req.head.method;
  if (path == "/validate" || path == "/mutate") {
    if (method == "POST") return Review(req, res, path == "/mutate");
    // Reviews are POSTs; say so instead of a bare 404 for the other methods.
    res.Set(405, "use POST with an AdmissionReview\n");
    res.headers.emplace_back("Allow", "POST");
    return;
  }
  const bool get = method == "GET" || method == "HEAD";
  if (path == "/healthz" || path == "/readyz" || path == "/metrics" || path == "/quota") {
    if (!get) {
      res.Set(405, "use GET\n");
      res.headers.emplace_back("Allow", "GET, HEAD");
      return;
    }
  } else {
    res.Set(404, "gpugate serves /validate, /mutate, /healthz, /readyz, /metrics and /quota\n");
    return;
  }
  if (path == "/healthz") {
    res.Set(200, "ok\n");
  } else if (path == "/readyz") {
    bool ready = ready_ && handler_.Ready();
    res.Set(ready ? 200 : 503, ready ? "ok\n" : "not ready\n");
  } else if (path == "/metrics") {
    std::string body = metrics_.Render() + http_->RenderMetrics() + tls_->RenderMetrics() +
                       clientAuth_->RenderMetrics();
    if (const quota::Accounting* ledger = handler_.ledger())
      body += quota::UsagePrometheus(ledger->Usage());
    res.Set(200, std::move(body), "text/plain; version=0.0.4");
  } else {  // /quota
    const quota::Accounting* ledger = handler_.ledger();
    if (!ledger) {
      res.Set(404, "quota accounting is off\n");
      return;
    }
    std::string ns = QueryParam(req.head.query, "namespace").value_or("");
    res.Set(200, quota::UsageJson(ledger->Usage(ns)), "application/json");
  }
}

namespace {

// When the answer must be ready: the caller's timeout less a tenth of it (at least 0.1 s, at
// most 1 s) for encoding and sending it, so a refusal for want of time reaches the API server
// before it gives up and reports its own, less helpful, "context deadline exceeded".
Clock::time_point AnswerDeadline(Clock::time_point start, std::chrono::nanoseconds timeout) {
  using std::chrono::milliseconds;
  auto margin =
      std::clamp<std::chrono::nanoseconds>(timeout / 10, milliseconds(100), milliseconds(1000));
  return start + timeout - margin;
}

}  // namespace

void Server::Review(const Request& req, Response& res, bool mutate) {
  const char* route = mutate ? "mutate" : "validate";
  if (!IsJsonMediaType(req.head.Header("Content-Type"))) {
    res.Set(415, "Content-Type must be application/json\n");
    metrics_.CountRequest(route, res.status);
    return;
  }
  auto start = Clock::now();
  auto request = review::DecodeReview(req.body);
  if (!request) {
    res.Set(400, request.error().message + "\n");
    metrics_.CountRequest(route, res.status);
    LogLine("bad request").Str("route", route).Str("error", request.error().message).Warn();
    return;
  }
  Pending pending{.route = route, .start = start};
  if (auto timeoutParam = QueryParam(req.head.query, "timeout")) {  // the API server's, e.g. 5s
    auto timeout = ParseGoDuration(*timeoutParam);
    if (!timeout) {
      res.Set(400,
              "timeout " + timeoutParam->substr(0, 64) + ": " + timeout.error().message + "\n");
      metrics_.CountRequest(route, res.status);
      return;
    }
    pending.timeout = *timeoutParam;
    pending.callerDeadline = start + *timeout;
    request->deadline = AnswerDeadline(start, *timeout);
  }
  if (mutate || !handler_.MayBlock(*request)) return Decide(*request, pending, mutate, res);
  // The request's views point into the connection's buffer, which stays put until the answer.
  auto shared = std::make_shared<review::AdmissionRequest>(std::move(*request));
  res.blocking = [this, shared, pending](Response& later) {
    Decide(*shared, pending, /*mutate=*/false, later);
  };
}

void Server::Decide(const review::AdmissionRequest& request, const Pending& pending, bool mutate,
                    Response& res) {
  review::Decision d = mutate ? handler_.Mutate(request) : handler_.Validate(request);
  res.Set(200, review::EncodeResponse(request, d), "application/json");
  auto elapsed = Clock::now() - pending.start;
  double seconds = std::chrono::duration<double>(elapsed).count();
  metrics_.CountRequest(pending.route, 200);
  metrics_.CountDecision(pending.route, DecisionWord(d), d.reason);
  for (const review::ViolatedRule& v : d.violated) metrics_.CountViolation(v.rule, v.mode);
  metrics_.ObserveLatency(pending.route, seconds);
  LogLine line("decision");
  line.Str("route", pending.route)
      .Str("uid", request.uid)
      .Str("kind", request.kind.kind)
      .Str("namespace", request.ns)
      .Str("name", request.name)
      .Str("operation", request.operation)
      .Str("decision", DecisionWord(d))
      .Str("reason", d.reason)
      .Str("message", d.message);
  LogNotes(d, line);
  line.Int("micros", std::chrono::duration_cast<std::chrono::microseconds>(elapsed).count()).Info();
  if (pending.callerDeadline && pending.start + elapsed > *pending.callerDeadline) {
    LogLine("answered after the caller's deadline")
        .Str("route", pending.route)
        .Str("uid", request.uid)
        .Str("timeout", pending.timeout)
        .Warn();
  }
}

void Server::Run() {
  if (!http_) return;
  ready_ = !draining_;
  LogLine("listening").Str("host", options_.listen.host).Int("port", port_).Info();
  http_->Run();
  ready_ = false;
}

// While draining, every answer tells its caller to close the connection: the API server then
// opens a new one, which the Service sends to an instance that is not stopping.
void Server::BeginDrain() {
  draining_ = true;
  ready_ = false;
  if (http_) http_->Drain();
}

void Server::Stop() {
  draining_ = true;
  ready_ = false;
  if (http_) http_->Stop();
}

}  // namespace gpugate::transport
