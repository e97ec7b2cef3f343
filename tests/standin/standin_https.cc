#include "standin/standin_https.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <climits>

namespace gpugate::testing::standin {
namespace {

using Clock = std::chrono::steady_clock;

// How often a connection waiting for its next request looks at whether the server is stopping.
constexpr std::chrono::milliseconds kStopPoll{10};

bool Poll(int fd, short events, time_t sec, time_t usec) {
  pollfd p{fd, events, 0};
  int ms = static_cast<int>(sec * 1000 + usec / 1000);
  return ::poll(&p, 1, ms) > 0;
}

void Address(int fd, bool peer, std::string& ip, int& port) {
  sockaddr_storage addr{};
  socklen_t size = sizeof addr;
  int rc = peer ? getpeername(fd, reinterpret_cast<sockaddr*>(&addr), &size)
                : getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &size);
  if (rc != 0 || addr.ss_family != AF_INET) return;
  const auto* in = reinterpret_cast<const sockaddr_in*>(&addr);
  char text[INET_ADDRSTRLEN] = {};
  inet_ntop(AF_INET, &in->sin_addr, text, sizeof text);
  ip = text;
  port = ntohs(in->sin_port);
}

// httplib's Stream over one TLS connection on a blocking socket (httplib set its SO_RCVTIMEO and
// SO_SNDTIMEO to the server's read and write timeouts), as httplib's SSLSocketStream does.
class TlsStream : public httplib::Stream {
 public:
  TlsStream(SSL* ssl, int fd) : ssl_(ssl), fd_(fd) {}

  bool is_readable() const override {
    return SSL_pending(ssl_) > 0 || Poll(fd_, POLLIN, kTimeoutSec, 0);
  }
  // Writable, and the client has not hung up (httplib's is_socket_alive).
  bool is_writable() const override {
    if (!Poll(fd_, POLLOUT, kTimeoutSec, 0)) return false;
    if (!Poll(fd_, POLLIN, 0, 0)) return true;
    char byte;
    return ::recv(fd_, &byte, 1, MSG_PEEK) > 0;
  }
  ssize_t read(char* ptr, size_t size) override {
    if (!is_readable()) return -1;
    int n = SSL_read(ssl_, ptr, static_cast<int>(std::min<size_t>(size, INT_MAX)));
    if (n > 0) return n;
    return SSL_get_error(ssl_, n) == SSL_ERROR_ZERO_RETURN ? 0 : -1;
  }
  ssize_t write(const char* ptr, size_t size) override {
    int n = SSL_write(ssl_, ptr, static_cast<int>(std::min<size_t>(size, INT_MAX)));
    return n > 0 ? n : -1;
  }
  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    Address(fd_, true, ip, port);
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    Address(fd_, false, ip, port);
  }
  socket_t socket() const override { return fd_; }

 private:
  static constexpr time_t kTimeoutSec = 10;  // the stand-in's read and write timeouts
  SSL* ssl_;
  int fd_;
};

}  // namespace

IdleClosingServer::Wait IdleClosingServer::WaitForRequest(socket_t sock) const {
  auto idleSince = Clock::now();
  while (svr_sock_ != INVALID_SOCKET) {
    auto left = idleLimit_ -
                std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - idleSince);
    if (left <= std::chrono::milliseconds::zero()) return Wait::kIdle;
    pollfd p{sock, POLLIN, 0};
    int rc = ::poll(&p, 1, static_cast<int>(std::min(left, kStopPoll).count()));
    if (rc != 0) return Wait::kReadable;  // a request, a hang-up or an error: reading tells
  }
  return Wait::kStopped;
}

bool IdleClosingServer::process_and_close_socket(socket_t sock) {
  ++accepted_;
  SSL* ssl = SSL_new(ssl_context());
  bool graceful = false;
  bool idle = false;
  if (ssl != nullptr && SSL_set_fd(ssl, sock) == 1 && SSL_accept(ssl) == 1) {
    size_t left = keep_alive_max_count_;
    while (left > 0) {
      Wait wait = SSL_pending(ssl) > 0 ? Wait::kReadable : WaitForRequest(sock);
      if (wait != Wait::kReadable) {
        idle = wait == Wait::kIdle;
        graceful = true;
        break;
      }
      TlsStream stream(ssl, sock);
      bool closed = false;
      --left;
      graceful = process_request(stream, left == 0, closed, nullptr);
      if (!graceful || closed) break;
    }
  }
  if (ssl != nullptr) {
    if (graceful) SSL_shutdown(ssl);  // close_notify
    SSL_free(ssl);
  }
  ::shutdown(sock, SHUT_RDWR);
  ::close(sock);
  if (idle) ++closedIdle_;  // counted once closed, so a test that waits for it finds it closed
  return graceful;
}

}  // namespace gpugate::testing::standin
