#include "serving/server.h"

#include <openssl/ssl.h>

#include <string_view>
#include <utility>

#include "quota/report.h"
#include "transport/log.h"
#include "transport/tls_context.h"
#include "usage/report_format.h"
#include "usage/report_query.h"
#include "usage/spend_report.h"
#include "usage/usage_metrics.h"

namespace gpugate::serving {

using std::chrono::sys_seconds;
using transport::HeadVerdict;
using transport::Request;
using transport::Response;

Server::Server(ServerOptions options, const admission::Handler& handler)
    : options_(std::move(options)), handler_(handler) {}

Status Server::Bind() {
  auto tls = transport::TlsReloader::Load({.certFile = options_.certFile,
                                           .keyFile = options_.keyFile,
                                           .clientCaFile = options_.clientCaFile,
                                           .reloadInterval = options_.tlsReloadInterval});
  if (!tls) return std::unexpected(tls.error());
  tls_ = std::move(*tls);
  clientAuth_ = std::make_unique<transport::ClientAuth>(transport::ClientAuthPolicy{
      .required = tls_->requestsClientCertificates(), .openPaths = options_.openPaths});
  ctx_.reset(SSL_CTX_new(TLS_server_method()));
  if (!ctx_) return Fail("cannot set up TLS");
  transport::ConfigureServerProtocol(*ctx_);
  tls_->Install(*ctx_);

  // The server's keep-alive, deadlines and threads are in transport/tuning.h, with the reasons.
  http_ = std::make_unique<transport::EventServer>(
      options_.tuning, *ctx_,
      [this](const Request& req, Response& res) { return ScreenHead(req, res); },
      [this](const Request& req, Response& res) { Route(req, res); });
  auto port = http_->Listen(options_.listen);
  if (!port) return std::unexpected(port.error());
  port_ = *port;
  tls_->StartPolling();
  return {};
}

HeadVerdict Server::ScreenHead(const Request& req, Response& res) {
  const std::string_view path = req.head.path;
  const HeadVerdict verdict = clientAuth_->Check(path, req.ssl, res);
  // Refusals on the review routes count with their other answers.
  if (verdict == HeadVerdict::kRefuse && (path == "/validate" || path == "/mutate")) {
    metrics_.CountRequest(path.substr(1), res.status);
  }
  return verdict;
}

void Server::Route(const Request& req, Response& res) {
  const std::string_view path = req.head.path;
  const std::string_view method = req.head.method;
  if (path == "/validate" || path == "/mutate") {
    if (method == "POST") {
      return reviews_.Serve(req, res,
                            path == "/mutate" ? ReviewKind::kMutate : ReviewKind::kValidate);
    }
    // Reviews are POSTs; say so instead of a bare 404 for the other methods.
    res.Set(405, "use POST with an AdmissionReview\n");
    res.headers.emplace_back("Allow", "POST");
    return;
  }
  const bool get = method == "GET" || method == "HEAD";
  if (path == "/healthz" || path == "/readyz" || path == "/metrics" || path == "/quota" ||
      path == "/usage") {
    if (!get) {
      res.Set(405, "use GET\n");
      res.headers.emplace_back("Allow", "GET, HEAD");
      return;
    }
  } else {
    res.Set(404,
            "gpugate serves /validate, /mutate, /healthz, /readyz, /metrics, /quota and /usage\n");
    return;
  }
  if (path == "/healthz") {
    res.Set(200, "ok\n");
  } else if (path == "/readyz") {
    bool ready = ready_ && handler_.Ready();
    res.Set(ready ? 200 : 503, ready ? "ok\n" : "not ready\n");
  } else if (path == "/metrics") {
    RenderMetrics(res);
  } else if (path == "/usage") {
    RenderUsage(req, res);
  } else {
    RenderQuota(req, res);
  }
}

void Server::RenderMetrics(Response& res) const {
  std::string body = metrics_.Render() + http_->RenderMetrics() + tls_->RenderMetrics() +
                     clientAuth_->RenderMetrics() + transport::RenderLogMetrics();
  if (const quota::Accounting* ledger = handler_.ledger())
    body += quota::UsagePrometheus(ledger->Usage());
  if (const usage::UsageView* usage = handler_.usage()) {
    body += usage::UsagePrometheus(*usage, Now());
  }
  res.Set(200, std::move(body), "text/plain; version=0.0.4");
}

void Server::RenderQuota(const Request& req, Response& res) const {
  const quota::Accounting* ledger = handler_.ledger();
  if (!ledger) {
    res.Set(404, "quota accounting is off\n");
    return;
  }
  std::string ns = transport::QueryParam(req.head.query, "namespace").value_or("");
  std::string body = quota::UsageJson(ledger->Usage(ns));
  if (const usage::UsageView* usage = handler_.usage()) {
    // Beside the holdings, what each namespace has spent this period (usage/spend_report.h).
    const sys_seconds now = Now();
    auto month = usage::QueryFrom({}, usage->zone(), now);
    if (month) {
      const auto rows = usage::SpendRows(usage->Standings(now), usage->Report(*month, now), ns);
      body = usage::WithSpendJson(std::move(body), rows);
    }
  }
  res.Set(200, std::move(body), "application/json");
}

std::chrono::sys_seconds Server::Now() const {
  const quota::Accounting* ledger = handler_.ledger();
  return std::chrono::floor<std::chrono::seconds>(ledger ? ledger->Now() : WallClock::now());
}

void Server::RenderUsage(const Request& req, Response& res) const {
  const usage::UsageView* usage = handler_.usage();
  if (!usage) {
    res.Set(404, "this gpugate keeps no GPU-hour usage\n");
    return;
  }
  const std::string_view q = req.head.query;
  const usage::ReportParams params{.period = transport::QueryParam(q, "period"),
                                   .since = transport::QueryParam(q, "since"),
                                   .until = transport::QueryParam(q, "until"),
                                   .by = transport::QueryParam(q, "by"),
                                   .ns = transport::QueryParam(q, "namespace")};
  const sys_seconds now = Now();
  auto query = usage::QueryFrom(params, usage->zone(), now);
  auto output =
      query ? usage::OutputFrom(transport::QueryParam(q, "format"),
                                transport::QueryParam(q, "resource"), params.by.has_value(), *query)
            : std::unexpected(query.error());
  auto rendered = output ? usage::RenderReportAs(usage->Report(*query, now), *output)
                         : std::unexpected(output.error());
  if (!rendered) {
    res.Set(400, rendered.error().message + "\n");
    return;
  }
  res.Set(200, std::move(rendered->body), rendered->contentType);
}

void Server::Run() {
  if (!http_) return;
  ready_ = !draining_;
  transport::LogLine("listening").Str("host", options_.listen.host).Int("port", port_).Info();
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

}  // namespace gpugate::serving
