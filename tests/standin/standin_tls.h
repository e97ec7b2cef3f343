// TLS for the stand-in API server: a server context loaded from PEM files that keeps a list of
// its open connections, so Stop() can shut them. httplib's stop() otherwise waits for every
// kept-alive connection to sit out its idle timeout.
#pragma once

#include <openssl/ssl.h>

#include <map>
#include <mutex>
#include <string>

namespace gpugate::testing::standin {

// Thread-safety: all methods may be called from any thread. Must outlive every SSL made from the
// contexts it configured (httplib frees them before its server's stop() returns).
class OpenConnections {
 public:
  // Loads the certificate chain and key into `ctx` (TLS 1.2 or later) and has it report each
  // connection's socket from its handshake until SSL_free. False when the files do not load.
  bool Configure(SSL_CTX& ctx, const std::string& certFile, const std::string& keyFile);
  // shutdown(2) on every open connection: blocked reads and writes fail, idle ones end at once.
  // The sockets stay open; httplib closes them.
  void ShutdownAll();
  // True when the client on `peerPort` (127.0.0.1) has closed its side. A watch that sends
  // nothing for a while asks this, so a gone client frees its thread without waiting for a write.
  bool PeerHungUp(int peerPort);

 private:
  static void OnInfo(const SSL* ssl, int where, int ret);
  static void OnFree(void* parent, void* ptr, CRYPTO_EX_DATA* data, int index, long argl,
                     void* argp);
  void Add(int fd);
  void Remove(int fd);

  std::mutex mu_;
  // Open sockets and their clients' ports; guarded by mu_; an entry goes before httplib closes
  // its socket.
  std::map<int, int> peerPorts_;
};

}  // namespace gpugate::testing::standin
