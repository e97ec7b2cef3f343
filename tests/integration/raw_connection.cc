#include "raw_connection.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>

namespace gpugate::testing {
namespace {

using Clock = std::chrono::steady_clock;

// Waits for `events` on `fd` until `deadline`; false on timeout.
bool WaitFor(int fd, short events, Clock::time_point deadline) {
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    pollfd p{fd, events, 0};
    int n = ::poll(&p, 1, static_cast<int>(std::max<int64_t>(left.count(), 0)));
    if (n > 0) return true;
    if (n == 0 || errno != EINTR) return false;
  }
}

// Whether `response` holds a whole HTTP response: headers and as much body as they announce.
bool Complete(const std::string& response) {
  size_t end = response.find("\r\n\r\n");
  if (end == std::string::npos) return false;
  std::string headers = response.substr(0, end);
  std::transform(headers.begin(), headers.end(), headers.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  size_t at = headers.find("\r\ncontent-length:");
  if (at == std::string::npos) return true;
  size_t length = std::stoul(headers.substr(at + 17));
  return response.size() - end - 4 >= length;
}

}  // namespace

RawConnection::RawConnection(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    if (fd >= 0) ::close(fd);
    return;
  }
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);  // a one-byte write goes now
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  fd_ = fd;
}

RawConnection::~RawConnection() {
  if (ssl_) SSL_free(ssl_);
  if (ctx_) SSL_CTX_free(ctx_);
  if (fd_ >= 0) ::close(fd_);
}

bool RawConnection::StartTls(std::chrono::milliseconds timeout) {
  if (fd_ < 0 || ssl_) return false;
  ctx_ = SSL_CTX_new(TLS_client_method());
  ssl_ = SSL_new(ctx_);
  SSL_set_fd(ssl_, fd_);
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    int rc = SSL_connect(ssl_);
    if (rc == 1) return true;
    int err = SSL_get_error(ssl_, rc);
    short events = err == SSL_ERROR_WANT_READ ? POLLIN : err == SSL_ERROR_WANT_WRITE ? POLLOUT : 0;
    if (events == 0 || !WaitFor(fd_, events, deadline)) return false;
  }
}

bool RawConnection::Send(std::string_view bytes) {
  if (fd_ < 0) return false;
  const auto deadline = Clock::now() + std::chrono::seconds(5);
  while (!bytes.empty()) {
    ssize_t n;
    short events = POLLOUT;
    if (ssl_) {
      n = SSL_write(ssl_, bytes.data(), static_cast<int>(std::min<size_t>(bytes.size(), 1 << 20)));
      if (n <= 0) {
        int err = SSL_get_error(ssl_, static_cast<int>(n));
        if (err != SSL_ERROR_WANT_READ && err != SSL_ERROR_WANT_WRITE) return false;
        events = err == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT;
      }
    } else {
      n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n < 0 && errno != EAGAIN && errno != EINTR) return false;
    }
    if (n > 0) {
      bytes.remove_prefix(static_cast<size_t>(n));
    } else if (!WaitFor(fd_, events, deadline)) {
      return false;
    }
  }
  return true;
}

std::string RawConnection::ReadResponse(std::chrono::milliseconds timeout) {
  std::string out;
  sawClose_ = false;
  const auto deadline = Clock::now() + timeout;
  char buf[16384];
  while (!Complete(out)) {
    ssize_t n;
    if (ssl_) {
      n = SSL_read(ssl_, buf, sizeof buf);
      if (n <= 0) {
        int err = SSL_get_error(ssl_, static_cast<int>(n));
        if (err != SSL_ERROR_WANT_READ && err != SSL_ERROR_WANT_WRITE) {
          sawClose_ = true;  // close_notify, end-of-file or a reset
          break;
        }
      }
    } else {
      n = ::recv(fd_, buf, sizeof buf, 0);
      if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
        sawClose_ = true;
        break;
      }
    }
    if (n > 0) {
      out.append(buf, static_cast<size_t>(n));
    } else if (!WaitFor(fd_, POLLIN, deadline)) {
      break;
    }
  }
  return out;
}

bool RawConnection::PeerClosed(std::chrono::milliseconds timeout) const {
  if (fd_ < 0) return true;
  // POLLRDHUP: the peer's FIN has arrived, even when data it sent before is still unread.
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    pollfd p{fd_, POLLRDHUP, 0};
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    int n = ::poll(&p, 1, static_cast<int>(std::max<int64_t>(left.count(), 0)));
    if (n > 0) return (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
    if (n == 0 || errno != EINTR) return false;
  }
}

int StatusOf(std::string_view response) {
  if (!response.starts_with("HTTP/1.") || response.size() < 12) return 0;
  int status = 0;
  for (char c : response.substr(9, 3)) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return 0;
    status = status * 10 + (c - '0');
  }
  return status;
}

std::string BodyOf(std::string_view response) {
  size_t end = response.find("\r\n\r\n");
  return end == std::string_view::npos ? "" : std::string(response.substr(end + 4));
}

}  // namespace gpugate::testing
