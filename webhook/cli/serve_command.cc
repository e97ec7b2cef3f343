#include <pthread.h>
#include <signal.h>

#include <iostream>
#include <thread>

#include "admission/handler.h"
#include "cli/cli.h"
#include "cli/flags.h"
#include "config/config.h"
#include "cli/quota_backend.h"
#include "transport/log.h"
#include "transport/server.h"

namespace gpugate::cli {
namespace {

constexpr FlagSpec kServeFlags[] = {{"config"}, {"listen"}, {"tls-cert"}, {"tls-key"},
                                    {"kubeconfig"}};

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
  if (auto v = flags.Get("kubeconfig")) {  // implies cluster mode
    cfg.cluster.enabled = true;
    cfg.cluster.kubeconfig = *v;
  }
  return cfg;
}

// Blocks SIGTERM and SIGINT in every thread (call before starting any), then waits for one on a
// dedicated thread and stops the server, so shutdown never runs inside a signal handler.
std::thread StopOnSignal(transport::Server& server) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  return std::thread([set, &server] {
    int sig = 0;
    sigwait(&set, &sig);
    transport::LogLine("stopping").Str("signal", sig == SIGTERM ? "SIGTERM" : "SIGINT").Info();
    server.Stop();
  });
}

}  // namespace

int RunServe(const std::vector<std::string>& args) {
  auto flags = Flags::Parse(args, kServeFlags);
  if (!flags) {
    std::cerr << "gpugate serve: " << flags.error().message << "\n";
    return 2;
  }
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
  admission::Handler handler(cfg->policy, &(*quota)->accounting());
  transport::Server server(
      {.listen = *listen, .certFile = cfg->tls.certFile, .keyFile = cfg->tls.keyFile}, handler);
  std::thread signals = StopOnSignal(server);
  if (auto bound = server.Bind(); !bound) {
    transport::LogLine("cannot start").Str("error", bound.error().message).Error();
    signals.detach();
    return 1;
  }
  server.Run();
  signals.join();
  transport::LogLine("stopped").Info();
  return 0;
}

}  // namespace gpugate::cli
