// Test support: a connection to the server under test where the test controls every byte, for
// what an HTTP client will not send: half-finished TLS handshakes, headers sent one byte at a
// time, chunked or unframed bodies, plain HTTP on the TLS port.
#pragma once

#include <openssl/ssl.h>

#include <chrono>
#include <string>
#include <string_view>

namespace gpugate::testing {

// One TCP connection to 127.0.0.1:port, plain until StartTls. Not thread-safe; one thread may
// Send while another only calls PeerClosed (both are single system calls on the socket).
class RawConnection {
 public:
  explicit RawConnection(int port);  // connects (blocking); ok() says whether it did
  ~RawConnection();
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  bool ok() const { return fd_ >= 0; }
  // A full TLS handshake within `timeout`. The server's certificate is not checked: these tests
  // are about bytes and timing, not trust (server_test.cc checks the certificate).
  bool StartTls(std::chrono::milliseconds timeout);
  // Sends all of `bytes` (encrypted once TLS is started); false when the connection is gone.
  bool Send(std::string_view bytes);
  // Reads until the peer closes or `timeout` passes, returning what arrived (decrypted once TLS
  // is started). Stops early once a whole HTTP response (headers and Content-Length body) is in.
  std::string ReadResponse(std::chrono::milliseconds timeout);
  // True when the peer has closed or reset the connection (end-of-file or an error is waiting
  // to be read), without consuming data; waits up to `timeout` for that to happen.
  bool PeerClosed(std::chrono::milliseconds timeout = std::chrono::milliseconds(0)) const;
  // Whether the last ReadResponse ended because the peer closed, not by timeout or completion.
  bool sawClose() const { return sawClose_; }

 private:
  int fd_ = -1;
  SSL_CTX* ctx_ = nullptr;
  SSL* ssl_ = nullptr;
  bool sawClose_ = false;
};

// The status code of an HTTP response ("HTTP/1.1 411 Length Required" -> 411), or 0.
int StatusOf(std::string_view response);
// The body of an HTTP response (after the blank line), or "".
std::string BodyOf(std::string_view response);

}  // namespace gpugate::testing
