// The stand-in's HTTPS connections: httplib's SSLServer for routing, with our own loop per
// connection so an idle kept-alive connection is closed as kube-apiserver closes it. Go's
// http.Server ends a connection idle for IdleTimeout (90 s in kube-apiserver) by closing the
// tls.Conn, which sends a TLS close_notify before the FIN. httplib's own keep-alive timeout is in
// whole seconds, so a test could not make it short.
#pragma once

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <functional>

namespace gpugate::testing::standin {

class IdleClosingServer : public httplib::SSLServer {
 public:
  // `setup` configures the SSL_CTX (certificate, key, tracking), as SSLServer's own callback.
  IdleClosingServer(const std::function<bool(SSL_CTX&)>& setup, std::chrono::milliseconds idleLimit)
      : httplib::SSLServer(setup), idleLimit_(idleLimit) {}

  int connectionsAccepted() const { return accepted_; }
  int idleConnectionsClosed() const { return closedIdle_; }

 private:
  // Handshake, then requests until the client hangs up, a request says Connection: close, the
  // server stops, or the connection sits idle for idleLimit_ (then close_notify and close).
  bool process_and_close_socket(socket_t sock) override;
  enum class Wait { kReadable, kIdle, kStopped };
  Wait WaitForRequest(socket_t sock) const;

  const std::chrono::milliseconds idleLimit_;
  std::atomic<int> accepted_{0};
  std::atomic<int> closedIdle_{0};
};

}  // namespace gpugate::testing::standin
