// How gpugate's HTTPS server is tuned: keep-alive, deadlines, body cap, the listen backlog,
// threads, the blocking workers and the connection bound. transport::EventServer reads it; the
// load benchmarks' cpp-httplib floor applies the same values to that library
// (bench/load/httplib_tuning.h). docs/decisions.md ("Transport") explains each value.
#pragma once

#include <chrono>
#include <cstddef>

#include "transport/worker_pool.h"

namespace gpugate::transport {

struct Tuning {
  // Requests served on one connection before the server ends it with `Connection: close`.
  // cpp-httplib's default (5) would cost the apiserver a TLS handshake every 5 reviews.
  size_t keepAliveMaxRequests = 10'000;
  // How long a kept-alive connection may sit idle before the server closes it. Longer than the
  // apiserver's own idle timeout (90 s), so the apiserver always closes first and never sends a
  // review on a connection the server is closing (it does not retry a POST that fails so).
  // A stopping server ends idle connections at once.
  std::chrono::milliseconds keepAliveIdle = std::chrono::seconds(120);
  // Deadlines for a phase as a whole, so a peer sending a byte every few seconds meets them too:
  // a TLS handshake from accept, a request's headers from their first byte, its body from the
  // end of its headers, an answer from its first write. At least the webhooks' timeoutSeconds
  // (5 s in our manifests), so no honest caller meets them. Milliseconds, so a test can wait out
  // a deadline quickly; EventServer keeps them to within a tenth of the shortest (at most
  // 100 ms late, at least 1 ms between scans). Zero: no deadline.
  std::chrono::milliseconds handshakeTimeout = std::chrono::seconds(10);
  std::chrono::milliseconds headerTimeout = std::chrono::seconds(10);
  std::chrono::milliseconds bodyTimeout = std::chrono::seconds(10);
  std::chrono::milliseconds writeTimeout = std::chrono::seconds(10);
  // How long an answer may take to make, from the end of its request (decoding, the rules, and a
  // quota charge waiting on the API server or a journal fsync). A charge is answered within its
  // review's ?timeout= (at most 30 s, the longest timeoutSeconds a webhook may set); past that
  // no API server still waits, so a connection whose answer is not made by then is closed.
  std::chrono::milliseconds handlingTimeout = std::chrono::seconds(30);
  // An AdmissionReview carries the object and, on UPDATE, the old object; etcd caps an object at
  // 1.5 MiB, so 8 MiB admits every real review and refuses anything absurd before parsing (413).
  size_t maxBodyBytes = 8 << 20;
  // The most request bytes held in memory across all connections, beyond each connection's
  // first 16 KiB (transport/byte_budget.h): a request that would take more is refused with 503
  // and its connection closed, so peers declaring bodies they never finish cannot take the pod
  // past its memory limit (512Mi; 128Mi in the local-ledger overlay). A quarter is kept for
  // requests of at most 1 MiB, the API server's ordinary reviews. 64 MiB holds six 8 MiB bodies
  // and, besides, hundreds of ordinary reviews at once.
  size_t bufferedRequestBytes = 64 << 20;
  // Connections the kernel holds completed but not yet accepted. cpp-httplib listens with 5;
  // a burst of new connections beyond that has SYNs dropped and retried a second later.
  int listenBacklog = 1024;
  // Threads serving connections; 0: one per CPU this process may run on (AvailableCpus). Any
  // of them serves any connection. They never block (answers that may are finished on
  // blockingWorkers), so more threads than CPUs only make runnable threads take turns.
  size_t threads = 0;
  // Open connections at most; beyond it a new one is closed on accept (and counted), so a flood
  // of idle sockets cannot exhaust descriptors. The API server keeps tens open per replica.
  size_t maxConnections = 4096;
  // The threads that finish answers which may block (Response::blocking: a quota charge waiting
  // on the API server or a journal fsync), so the serving threads above never wait on them and
  // probes are answered while every charge waits. Each such answer holds one until it is made;
  // beyond maxThreads they queue (and a charge that waited past its review's deadline answers
  // at once). Started on demand; idle ones retire.
  WorkerPoolOptions blockingWorkers{.coreThreads = 0, .maxThreads = 256, .stackBytes = 512 << 10};
};

// The CPUs this process may run on (its affinity mask, so `taskset` and cgroup cpusets count),
// at least 1.
size_t AvailableCpus();

// Raises this process's open-file soft limit towards `wanted` (never past the hard limit, never
// lowering it) and returns the soft limit now in force. Containers commonly start with a soft
// limit of 1,024, below maxConnections; a connection refused by it waits in the listen backlog.
size_t RaiseOpenFileLimit(size_t wanted);

}  // namespace gpugate::transport
