// The TLS connections a server has open: stopping ends the idle kept-alive ones at once, and a
// watchdog ends those that take too long to finish a TLS handshake or a request's headers.
//
// cpp-httplib 0.11's idle connection notices a stop only when its keep-alive timeout (120 s)
// runs out or the peer sends something, which would hold a SIGTERM past the pod's grace period.
// Its read timeout bounds each wait for bytes, not a handshake or a request's headers as a
// whole, so a peer sending a byte every few seconds would hold a worker thread forever.
#pragma once

#include <openssl/ssl.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_set>

namespace gpugate::transport {

// The longest a connection may spend in each phase; zero turns that deadline off.
struct ConnectionDeadlines {
  // From the handshake's first step (before the ClientHello has arrived) to its end.
  std::chrono::milliseconds handshake{0};
  // From the first bytes of a request to the end of its headers; the body and the answer are
  // not covered (the body cap and the read timeout bound those).
  std::chrono::milliseconds headers{0};
};

// Thread-safe.
class OpenConnections {
 public:
  OpenConnections() = default;
  ~OpenConnections();  // stops the watchdog
  OpenConnections(const OpenConnections&) = delete;
  OpenConnections& operator=(const OpenConnections&) = delete;

  // Tracks every connection made with `ctx`: its socket is recorded when its TLS handshake
  // starts and forgotten when httplib frees the SSL object, which it does before closing the
  // socket, so a recorded descriptor is never one the kernel has since handed to someone else.
  // Call once per context, from the SSLServer's context callback. The object must outlive
  // every SSL made with `ctx`. Installs the context's info and message callbacks.
  void Track(SSL_CTX& ctx);
  // Starts the watchdog: a connection past a deadline has its socket shut down, so the worker
  // serving it sees end-of-file and closes it. Call once, before serving.
  void EnforceDeadlines(ConnectionDeadlines deadlines);
  // The server has read the headers of a request on `ssl` (call from the pre-routing handler):
  // the headers deadline no longer applies to it. The connection is idle again once the answer
  // starts to go out.
  void HeadersRead(const SSL* ssl);
  // Shuts down the read side of every open connection, after the listener has closed. A
  // connection waiting for its next request sees end-of-file and closes; a request whose
  // bytes have arrived is still read (Linux returns queued data before end-of-file), answered,
  // and its connection then closes because the server is stopping. Returns how many.
  size_t ShutdownReads();

  // gpugate_http_connections_timed_out_total{phase="handshake"|"headers"}.
  std::string RenderMetrics() const;

 private:
  struct Entry;
  struct ExIndexes {
    int ctx;  // SSL_CTX ex-data: the OpenConnections tracking it
    int ssl;  // SSL ex-data: its Entry, freed by OnFree
  };
  static const ExIndexes& Indexes();  // allocated once per process
  static Entry* EntryOf(const SSL* ssl);
  static void OnInfo(const SSL* ssl, int where, int ret);
  static void OnMessage(int write, int version, int contentType, const void* buf, size_t len,
                        SSL* ssl, void* arg);
  static void OnFree(void* parent, void* ptr, CRYPTO_EX_DATA* ad, int idx, long argl, void* argp);
  void Watch();
  int64_t DeadlineAfter(std::chrono::milliseconds limit) const;  // 0 when limit is zero

  ConnectionDeadlines deadlines_;  // set once, before any connection
  mutable std::mutex mu_;
  std::condition_variable stop_;
  std::unordered_set<Entry*> entries_;  // guarded by mu_
  bool stopping_ = false;               // guarded by mu_
  uint64_t timedOut_[2] = {0, 0};       // by phase (handshake, headers); guarded by mu_
  std::thread watchdog_;
};

}  // namespace gpugate::transport
