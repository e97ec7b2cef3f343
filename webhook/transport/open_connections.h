// The TLS connections a server has open, so that stopping ends the idle kept-alive ones at once.
// cpp-httplib 0.11's idle connection notices a stop only when its keep-alive timeout (120 s)
// runs out or the peer sends something, which would hold a SIGTERM past the pod's grace period.
#pragma once

#include <openssl/ssl.h>

#include <cstddef>
#include <mutex>
#include <unordered_set>

namespace gpugate::transport {

// Thread-safe.
class OpenConnections {
 public:
  // Tracks every connection made with `ctx`: its socket is recorded when its TLS handshake
  // starts and forgotten when httplib frees the SSL object, which it does before closing the
  // socket, so a recorded descriptor is never one the kernel has since handed to someone else.
  // Call once per context, from the SSLServer's context callback. The object must outlive
  // every SSL made with `ctx`.
  void Track(SSL_CTX& ctx);
  // Shuts down the read side of every open connection, after the listener has closed. A
  // connection waiting for its next request sees end-of-file and closes; a request whose
  // bytes have arrived is still read (Linux returns queued data before end-of-file), answered,
  // and its connection then closes because the server is stopping. Returns how many.
  size_t ShutdownReads();

 private:
  struct Entry;
  struct ExIndexes {
    int ctx;  // SSL_CTX ex-data: the OpenConnections tracking it
    int ssl;  // SSL ex-data: its Entry, freed by OnFree
  };
  static const ExIndexes& Indexes();  // allocated once per process
  static void OnInfo(const SSL* ssl, int where, int ret);
  static void OnFree(void* parent, void* ptr, CRYPTO_EX_DATA* ad, int idx, long argl, void* argp);

  std::mutex mu_;
  std::unordered_set<int> fds_;  // guarded by mu_
};

}  // namespace gpugate::transport
