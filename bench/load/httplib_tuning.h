// The cpp-httplib floor of the load benchmarks (floor_server.cc) tuned as gpugate tuned
// cpp-httplib when it served with it: gpugate's keep-alive, deadlines, body cap and backlog
// (transport::Tuning), a per-read timeout, and a growing transport::WorkerPool as the library's
// task queue, where each task is one connection's whole keep-alive life. Benchmark code only:
// gpugate serves with transport::EventServer (docs/decisions.md, "Transport").
#pragma once

#include <chrono>
#include <memory>

#include "transport/tuning.h"
#include "transport/worker_pool.h"

namespace httplib {
class Server;
}

namespace gpugate::bench {

struct HttplibTuning {
  transport::Tuning server;  // keep-alive, write deadline, body cap, backlog
  // cpp-httplib's timeout for each read (it has no deadline for a phase as a whole).
  std::chrono::milliseconds readTimeout = std::chrono::seconds(10);
  // A connection holds a worker for its keep-alive life, so the pool grows past the number of
  // open connections instead of starving new ones behind idle kept-alive ones.
  transport::WorkerPoolOptions workers{
      .coreThreads = 8, .maxThreads = 512, .stackBytes = 256 << 10};
};

// Applies `tuning` to `server` (call before binding: TCP_NODELAY is set on the listening socket
// and accepted sockets inherit it) and installs a WorkerPool as its task queue. Returns the pool
// so the caller can read its stats; the server holds a reference too. One listen per call: the
// pool is shut down when that listen returns.
std::shared_ptr<transport::WorkerPool> ApplyTuning(httplib::Server& server,
                                                   const HttplibTuning& tuning);

}  // namespace gpugate::bench
