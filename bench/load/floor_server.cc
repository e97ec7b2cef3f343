// The transport floor: the same cpp-httplib, TLS and socket settings and the same worker pool as
// gpugate's transport (webhook/transport/server.cc, tuning.h), answering POST /validate and
// /mutate with a fixed AdmissionReview response without looking at the body. Whatever gpugate
// does beyond this (decode, rules, quota, encode, metrics, logs) is the difference between the
// two under the same load (docs/performance.md). Not a product: no config, no metrics; stops on
// SIGTERM or SIGINT.
//
//   gpugate_floor --listen 127.0.0.1:PORT --tls-cert tls.crt --tls-key tls.key
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

// The socket, keep-alive, backlog and worker settings: gpugate's own (transport/tuning.h), applied
// by the same function transport::Server::Bind calls. Returns the worker pool, which the server
// shares; it must outlive the accept loop.
std::shared_ptr<gpugate::transport::WorkerPool> ConfigureLikeGpugate(httplib::SSLServer& http) {
  return gpugate::transport::ApplyTuning(http, gpugate::transport::Tuning{});
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

int main(int argc, char** argv) {
  Args args;
  if (!ParseArgs(argc, argv, args)) {
    std::cerr << "usage: gpugate_floor [--listen HOST:PORT] --tls-cert FILE --tls-key FILE\n";
    return 2;
  }
  signal(SIGPIPE, SIG_IGN);  // as gpugate serve: a client hanging up costs one failed write
  sigset_t stopSignals;
  sigemptyset(&stopSignals);
  sigaddset(&stopSignals, SIGTERM);
  sigaddset(&stopSignals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stopSignals, nullptr);

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
    // stop() is a no-op before the accept loop runs; wait for it, as transport::Server::Run does.
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
