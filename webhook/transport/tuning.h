// How gpugate's HTTP server is tuned: keep-alive, timeouts, body cap, TCP_NODELAY, the listen
// backlog and the worker pool. One struct and one function, so gpugate and the benchmarks' floor
// server run with the same settings. docs/decisions.md ("Transport") explains each value.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>

#include "transport/worker_pool.h"

namespace httplib {
class Server;
}

namespace gpugate::transport {

struct Tuning {
  // Requests served on one connection before the server ends it with `Connection: close`.
  // cpp-httplib's default (5) would cost the apiserver a TLS handshake every 5 reviews.
  size_t keepAliveMaxRequests = 10'000;
  // How long a kept-alive connection may sit idle before the server closes it. Longer than the
  // apiserver's own idle timeout (90 s), so the apiserver always closes first and never sends a
  // review on a connection the server is closing (it does not retry a POST that fails so).
  // cpp-httplib notices a stop on an idle connection only after this long; transport::Server
  // ends them itself when stopping (open_connections.h).
  std::chrono::seconds keepAliveIdle{120};
  // Longest wait for the next bytes of a TLS handshake or request once it has begun, and for the
  // peer to take response bytes. At least the webhooks' timeoutSeconds (5 s in our manifests).
  std::chrono::seconds readTimeout{10};
  std::chrono::seconds writeTimeout{10};
  // The read timeout bounds each wait, so a peer sending a byte every few seconds never meets it.
  // These bound a TLS handshake as a whole, and a request's headers from its first byte; the
  // server's connection watchdog enforces them (open_connections.h), not ApplyTuning.
  std::chrono::seconds handshakeTimeout{10};
  std::chrono::seconds headerTimeout{10};
  // An AdmissionReview carries the object and, on UPDATE, the old object; etcd caps an object at
  // 1.5 MiB, so 8 MiB admits every real review and refuses anything absurd before parsing (413).
  size_t maxBodyBytes = 8 << 20;
  // Connections the kernel holds completed but not yet accepted. cpp-httplib listens with 5;
  // a burst of new connections beyond that has SYNs dropped and retried a second later.
  int listenBacklog = 1024;
  WorkerPoolOptions workers;
};

// Applies `tuning` to `server` (call before binding; TCP_NODELAY is set on the listening socket
// and accepted sockets inherit it) and installs a WorkerPool as its task queue. Returns the pool
// so the caller can read its stats; the server holds a reference too. One listen per call: the
// pool is shut down when that listen returns.
std::shared_ptr<WorkerPool> ApplyTuning(httplib::Server& server, const Tuning& tuning);

}  // namespace gpugate::transport
