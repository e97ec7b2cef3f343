#include <pthread.h>
#include <signal.h>

#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <ctime>
#include <iostream>
#include <thread>

#include "admission/handler.h"
#include "cli/cli.h"
#include "cli/flags.h"
#include "cli/namespace_source.h"
#include "cli/quota_backend.h"
#include "cli/serve_tuning.h"
#include "common/go_duration.h"
#include "config/config.h"
#include "serving/server.h"
#include "transport/log.h"

namespace gpugate::cli {
namespace {

// Defaults named here are config::Config's; cli_test.cc checks they agree.
constexpr FlagSpec kServeFlags[] = {
    {.name = "config",
     .valueName = "FILE",
     .help = "the configuration file (docs/configuration.md); without it,\n"
             "every key has its default. Each flag below overrides the key\n"
             "in its parentheses"},
    {.name = "listen",
     .valueName = "HOST:PORT",
     .help = "serve HTTPS here; port 0 picks a free one\n"
             "(listen, default 0.0.0.0:8443)"},
    {.name = "tls-cert",
     .valueName = "FILE",
     .help = "PEM certificate chain\n"
             "(tls.certFile, default /etc/gpugate/tls/tls.crt)"},
    {.name = "tls-key",
     .valueName = "FILE",
     .help = "PEM private key\n"
             "(tls.keyFile, default /etc/gpugate/tls/tls.key)"},
    {.name = "tls-client-ca",
     .valueName = "FILE",
     .help = "PEM CA certificates a caller's certificate must chain to,\n"
             "for mutual TLS (tls.clientCAFile, default none)"},
    {.name = "kubeconfig",
     .valueName = "FILE",
     .help = "turn cluster mode on, reaching the Kubernetes API with this\n"
             "kubeconfig (cluster.enabled, cluster.kubeconfig; docs/cluster.md)"},
    {.name = "shutdown-delay",
     .valueName = "SECONDS",
     .help = "after SIGTERM, keep answering (not ready) this long before\n"
             "closing the listener, 0 to 300 (shutdownDelaySeconds, default 0)"},
    kHelpFlag,
};

constexpr std::string_view kServeForms[] = {
    "[--config FILE] [--listen HOST:PORT] [--tls-cert FILE] [--tls-key FILE]\n"
    "[--tls-client-ca FILE] [--kubeconfig FILE] [--shutdown-delay SECONDS]"};

// The configuration: the file (or built-in defaults) with flags laid over it.
Result<config::Config> LoadServeConfig(const Flags& flags) {
  config::Config cfg;
  if (auto path = flags.Get("config")) {
    auto loaded = config::LoadConfigFile(*path);
    if (!loaded) return std::unexpected(loaded.error());
    cfg = std::move(*loaded);
  }
  if (auto v = flags.Get("listen")) cfg.listen = *v;
  if (auto v = flags.Get("tls-cert")) cfg.tls.certFile = *v;
  if (auto v = flags.Get("tls-key")) cfg.tls.keyFile = *v;
  if (auto v = flags.Get("tls-client-ca")) cfg.tls.clientCAFile = *v;
  if (auto v = flags.Get("shutdown-delay")) {
    int64_t seconds = -1;
    auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), seconds);
    if (ec != std::errc() || end != v->data() + v->size() || seconds < 0 || seconds > 300) {
      return Fail("--shutdown-delay: must be a number of seconds from 0 to 300, got \"" + *v +
                  "\"");
    }
    cfg.shutdownDelay = std::chrono::seconds(seconds);
  }
  if (auto v = flags.Get("kubeconfig")) {  // implies cluster mode
    cfg.cluster.enabled = true;
    cfg.cluster.kubeconfig = *v;
  }
  return cfg;
}

// SIGTERM and SIGINT: RunServe blocks them before it starts any thread (the cluster ledger's
// informers, the worker pool), so every thread inherits the mask and only StopOnSignal's takes
// them; one thread left unblocked would die of the signal's default action, with the process.
sigset_t StopSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  return set;
}

// Waits for SIGTERM or SIGINT on a dedicated thread and stops the server, so shutdown never runs
// inside a signal handler. The stop is graceful: the server drains for `delay` (still answering,
// not ready, asking callers to reconnect) while endpoints drop it, then stops accepting and
// finishes what is in flight. A second signal cuts the delay short.
std::thread StopOnSignal(serving::Server& server, std::chrono::milliseconds delay) {
  sigset_t set = StopSignals();
  return std::thread([set, &server, delay] {
    int sig = 0;
    sigwait(&set, &sig);
    transport::LogLine("stopping")
        .Str("signal", sig == SIGTERM ? "SIGTERM" : "SIGINT")
        .Str("delay", FormatGoDuration(delay))
        .Info();
    server.BeginDrain();
    if (delay.count() > 0) {
      timespec wait{static_cast<time_t>(delay.count() / 1000), (delay.count() % 1000) * 1000000};
      while (sigtimedwait(&set, nullptr, &wait) < 0 && errno == EINTR) {
      }
    }
    server.Stop();
  });
}

}  // namespace

const CommandHelp kServeHelp = {
    .name = "serve",
    .forms = kServeForms,
    .summary =
        "Serve /validate, /mutate, /quota, /healthz, /readyz and /metrics over HTTPS.\n"
        "On SIGTERM, drain for --shutdown-delay seconds (default 0), then finish\n"
        "in-flight reviews and exit.",
    .flags = kServeFlags,
};

int RunServe(const std::vector<std::string>& args) {
  auto flags = Flags::Parse(args, kServeFlags);
  if (flags && flags->Has("help")) {
    PrintCommandHelp(std::cout, kServeHelp, "gpugate serve");
    return 0;
  }
  if (!flags) {
    std::cerr << "gpugate serve: " << flags.error().message << "\n";
    return 2;
  }
  sigset_t stopSignals = StopSignals();
  pthread_sigmask(SIG_BLOCK, &stopSignals, nullptr);
  transport::InitJsonLogging();
  // A caller that hangs up mid-response must cost one failed write, not the process: OpenSSL
  // writes to the socket with write(2), which raises SIGPIPE on a closed connection.
  signal(SIGPIPE, SIG_IGN);
  auto cfg = LoadServeConfig(*flags);
  if (!cfg) {
    transport::LogLine("invalid configuration").Str("error", cfg.error().message).Error();
    return 1;
  }
  auto listen = ParseHostPort(cfg->listen);
  if (!listen) {
    transport::LogLine("invalid configuration")
        .Str("error", "listen: " + listen.error().message)
        .Error();
    return 1;
  }
  auto quota = QuotaBackend::Open(*cfg);
  if (!quota) {
    transport::LogLine("cannot open quota accounting").Str("error", quota.error().message).Error();
    return 1;
  }
  auto namespaces = NamespaceSource::Open(*cfg);
  if (!namespaces) {
    transport::LogLine("cannot watch namespaces").Str("error", namespaces.error().message).Error();
    return 1;
  }
  admission::Handler handler(cfg->policy, &(*quota)->accounting(),
                             *namespaces ? &(*namespaces)->labels() : nullptr, (*quota)->usage());
  // A charge that may block (an fsync, the API server) is answered on the blocking workers,
  // never on a serving thread (transport/tuning.h).
  transport::Tuning tuning;
  ApplyServerConfig(cfg->server, tuning);  // the file's deadlines
  // Each open connection is a descriptor, plus a few for the listener, epoll, files and logs.
  const size_t wantedFiles = tuning.maxConnections + 64;
  if (size_t files = transport::RaiseOpenFileLimit(wantedFiles); files < wantedFiles) {
    transport::LogLine("open file limit is below the connection bound")
        .Int("limit", static_cast<int64_t>(files))
        .Int("maxConnections", static_cast<int64_t>(tuning.maxConnections))
        .Warn();
  }
  serving::Server server({.listen = *listen,
                          .certFile = cfg->tls.certFile,
                          .keyFile = cfg->tls.keyFile,
                          .clientCaFile = cfg->tls.clientCAFile,
                          .openPaths = cfg->tls.openPaths,
                          .tlsReloadInterval = cfg->tls.reloadInterval,
                          .tuning = tuning},
                         handler);
  std::thread signals = StopOnSignal(server, cfg->shutdownDelay);
  if (auto bound = server.Bind(); !bound) {
    transport::LogLine("cannot start").Str("error", bound.error().message).Error();
    signals.detach();
    return 1;
  }
  server.Run();
  signals.join();
  transport::LogLine("stopped").Info();
  transport::FlushLogs();
  return 0;
}

}  // namespace gpugate::cli
