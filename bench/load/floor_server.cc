// The transport floors: a server answering POST /validate and /mutate with a fixed
// AdmissionReview response without looking at the body, over the same TLS settings as gpugate.
//   --transport httplib (default): cpp-httplib with gpugate's former tuning of it
//     (httplib_tuning.h) — the yardstick the performance issue names;
//   --transport event: gpugate's own transport (transport/event_server.h) with its tuning — what
//     gpugate itself could serve if it did no work.
// Whatever gpugate does beyond this (decode, rules, quota, encode, metrics, logs) is the
// difference under the same load (docs/performance.md). Not a product: no config, no metrics;
// stops on SIGTERM or SIGINT.
//
//   gpugate_floor --listen 127.0.0.1:PORT --tls-cert tls.crt --tls-key tls.key [--transport T]
#include <httplib.h>
#include <openssl/ssl.h>
#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <cstdio>
#include <iostream>
#include <string>
#include <string_view>
#include <thread>

#include "bench/load/httplib_tuning.h"
#include "transport/event_server.h"
#include "transport/tls_context.h"
#include "transport/tuning.h"

namespace {

// What gpugate answers for an allowed pod, and for a mutated one (a one-operation JSON Patch,
// base64): the response sizes are of the same order as gpugate's, so writing them costs the same.
constexpr std::string_view kAllowed =
    R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview",)"
    R"("response":{"uid":"00000000-0000-0000-0000-000000000000","allowed":true}})";
constexpr std::string_view kPatched =
    R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview",)"
    R"("response":{"uid":"00000000-0000-0000-0000-000000000000","allowed":true,)"
    R"("patchType":"JSONPatch","patch":")"
    R"(W3sib3AiOiJhZGQiLCJwYXRoIjoiL3NwZWMvdG9sZXJhdGlvbnMvLSIsInZhbHVlIjp7ImtleSI6Im52aWRpYS5jb20vZ3B1Iiwib3BlcmF0b3IiOiJFeGlzdHMiLCJlZmZlY3QiOiJOb1NjaGVkdWxlIn19XQ==)"
    R"("}})";

struct Args {
  std::string host = "127.0.0.1";
  int port = 0;
  std::string cert;
  std::string key;
  std::string transport = "httplib";
};

bool ParseArgs(int argc, char** argv, Args& out) {
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string_view flag = argv[i];
    std::string value = argv[i + 1];
    if (flag == "--listen") {
      auto colon = value.rfind(':');
      if (colon == std::string::npos) return false;
      out.host = value.substr(0, colon);
      out.port = std::stoi(value.substr(colon + 1));
    } else if (flag == "--tls-cert") {
      out.cert = value;
    } else if (flag == "--tls-key") {
      out.key = value;
    } else if (flag == "--transport" && (value == "httplib" || value == "event")) {
      out.transport = value;
    } else {
      return false;
    }
  }
  return argc % 2 == 1 && !out.cert.empty() && !out.key.empty();
}

// gpugate's own TLS context setup (transport/tls_context.h), the same function Server::Bind calls.
std::unique_ptr<httplib::SSLServer> MakeServer(const Args& args) {
  return std::make_unique<httplib::SSLServer>([&args](SSL_CTX& ctx) {
    return gpugate::transport::ConfigureServerTls(ctx, args.cert, args.key).has_value();
  });
}

// The socket, keep-alive, backlog and worker settings: gpugate's defaults (transport/tuning.h)
// applied to cpp-httplib as gpugate applied them when it served with it (httplib_tuning.h).
// Returns the worker pool, which the server shares; it must outlive the accept loop.
std::shared_ptr<gpugate::transport::WorkerPool> ConfigureLikeGpugate(httplib::SSLServer& http) {
  return gpugate::bench::ApplyTuning(http, gpugate::bench::HttplibTuning{});
}

void Routes(httplib::SSLServer& http) {
  auto fixed = [](std::string_view reply) {
    return [reply](const httplib::Request&, httplib::Response& res) {
      res.set_content(reply.data(), reply.size(), "application/json");
    };
  };
  http.Post("/validate", fixed(kAllowed));
  http.Post("/mutate", fixed(kPatched));
  http.Get("/healthz", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("ok\n", "text/plain");
  });
}

}  // namespace

// The same routes on gpugate's own transport, as serving::Server sets it up.
int ServeEvent(const Args& args, const sigset_t& stopSignals) {
  namespace t = gpugate::transport;
  SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
  if (!ctx || !t::ConfigureServerTls(*ctx, args.cert, args.key)) {
    std::cerr << "gpugate_floor: cannot load " << args.cert << " / " << args.key << "\n";
    return 1;
  }
  t::EventServer server(
      t::Tuning{}, *ctx, [](const t::Request&, t::Response&) { return t::HeadVerdict::kRead; },
      [](const t::Request& req, t::Response& res) {
        const auto& h = req.head;
        if (h.method == "POST" && (h.path == "/validate" || h.path == "/mutate")) {
          res.Set(200, std::string(h.path == "/validate" ? kAllowed : kPatched),
                  "application/json");
        } else if (h.path == "/healthz") {
          res.Set(200, "ok\n");
        } else {
          res.Set(404, "");
        }
      });
  auto port = server.Listen({args.host, args.port});
  if (!port) {
    std::cerr << "gpugate_floor: " << port.error().message << "\n";
    return 1;
  }
  std::printf("listening on %s:%d\n", args.host.c_str(), *port);
  std::fflush(stdout);
  std::thread stopper([&server, stopSignals] {
    int sig = 0;
    sigwait(&stopSignals, &sig);
    server.Stop();
  });
  server.Run();
  stopper.join();
  SSL_CTX_free(ctx);
  return 0;
}

int main(int argc, char** argv) {
  Args args;
  if (!ParseArgs(argc, argv, args)) {
    std::cerr << "usage: gpugate_floor [--listen HOST:PORT] --tls-cert FILE --tls-key FILE "
                 "[--transport httplib|event]\n";
    return 2;
  }
  signal(SIGPIPE, SIG_IGN);  // as gpugate serve: a client hanging up costs one failed write
  sigset_t stopSignals;
  sigemptyset(&stopSignals);
  sigaddset(&stopSignals, SIGTERM);
  sigaddset(&stopSignals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stopSignals, nullptr);
  if (args.transport == "event") return ServeEvent(args, stopSignals);

  auto http = MakeServer(args);
  if (!http->is_valid()) {
    std::cerr << "gpugate_floor: cannot load " << args.cert << " / " << args.key << "\n";
    return 1;
  }
  auto workers = ConfigureLikeGpugate(*http);  // before binding: it tunes the listening socket
  Routes(*http);
  int port = args.port == 0 ? http->bind_to_any_port(args.host)
                            : (http->bind_to_port(args.host, args.port) ? args.port : -1);
  if (port <= 0) {
    std::cerr << "gpugate_floor: cannot listen on " << args.host << ":" << args.port << "\n";
    return 1;
  }
  std::printf("listening on %s:%d\n", args.host.c_str(), port);
  std::fflush(stdout);

  std::atomic<bool> stopping{false};
  std::thread stopper([&http, &stopping, stopSignals] {
    int sig = 0;
    sigwait(&stopSignals, &sig);
    stopping = true;
    // stop() is a no-op before the accept loop runs; wait for it, as serving::Server::Run does.
    while (!http->is_running()) std::this_thread::yield();
    http->stop();
  });
  bool served = http->listen_after_bind();
  if (!stopping) {  // the accept loop failed; the stopper still waits in sigwait
    stopper.detach();
    return 1;
  }
  stopper.join();
  return served ? 0 : 1;
}
