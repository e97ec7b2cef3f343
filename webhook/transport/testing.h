// Test support for the event server's tests: the server over real TLS on a free port, in
// process, and a blocking OpenSSL client that sends exact bytes and reads exact answers, so each
// test asserts what a caller of the server sees. Header-only; tests only.
#pragma once

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>

#include "certs/test_certs.h"
#include "common/deadline.h"
#include "support/eventually.h"
#include "tls/openssl_ptr.h"
#include "transport/event_server.h"
#include "transport/tls_context.h"

namespace gpugate::transport::testutil {

using namespace std::chrono_literals;

// How long a test waits for anything the server should do at once (or after a short deadline).
constexpr auto kWait = 5s;

// Polls for an outcome, for kWait here (tests/support/eventually.h).
using gpugate::testing::Eventually;
// The deadline a test of deadlines sets: short, so the test takes a fraction of a second, and
// long enough that the client's own steps (a TLS handshake, a write) finish well before it.
constexpr auto kShortDeadline = 200ms;

// The server's context: the shared test certificate for 127.0.0.1, set up as gpugate's is.
inline SSL_CTX& ServerContext() {
  static const tls::SslCtxPtr ctx = [] {
    const auto& certs = certs::testing::SharedTestCerts();
    tls::SslCtxPtr c(SSL_CTX_new(TLS_server_method()));
    auto ok = ConfigureServerTls(*c, certs.certFile(), certs.keyFile());
    if (!ok) ADD_FAILURE() << ok.error().message;
    return c;
  }();
  return *ctx;
}

// The client does not check the server's certificate: these tests are about HTTP framing and
// connection handling, not trust (tls_reloader_test.cc checks certificates).
inline SSL_CTX* ClientContext() {
  static const tls::SslCtxPtr ctx(SSL_CTX_new(TLS_client_method()));
  return ctx.get();
}

// One blocking TCP connection to 127.0.0.1:port, plain until Handshake(). Every wait is bounded
// by kWait: reads time out every 100 ms and the loops check the clock.
class Client {
 public:
  explicit Client(int port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd_ < 0 || ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
      ADD_FAILURE() << "cannot connect to port " << port << ": " << std::strerror(errno);
      closed_ = true;
      return;
    }
    int one = 1;
    ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    timeval readWait{.tv_sec = 0, .tv_usec = 100'000};
    timeval writeWait{.tv_sec = 5, .tv_usec = 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &readWait, sizeof readWait);
    ::setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &writeWait, sizeof writeWait);
  }
  ~Client() {
    ssl_.reset();
    if (fd_ >= 0) ::close(fd_);
  }
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // A TLS handshake. False when the server ended the connection first (closed() is then true)
  // or kWait passed.
  bool Handshake() {
    if (closed_) return false;
    ssl_.reset(SSL_new(ClientContext()));
    SSL_set_fd(ssl_.get(), fd_);
    const auto deadline = SteadyClock::now() + kWait;
    for (;;) {
      int rc = SSL_connect(ssl_.get());
      if (rc == 1) return true;
      int err = SSL_get_error(ssl_.get(), rc);
      ERR_clear_error();
      if (err != SSL_ERROR_WANT_READ && err != SSL_ERROR_WANT_WRITE) {
        closed_ = true;
        return false;
      }
      if (SteadyClock::now() >= deadline) return false;
    }
  }

  // Sends all of `bytes` (encrypted after Handshake()); false when the connection is gone.
  bool Send(std::string_view bytes) {
    while (!bytes.empty() && !closed_) {
      ssize_t n = ssl_ ? SSL_write(ssl_.get(), bytes.data(), static_cast<int>(bytes.size()))
                       : ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      ERR_clear_error();
      if (n <= 0) return false;
      bytes.remove_prefix(static_cast<size_t>(n));
    }
    return bytes.empty();
  }

  // The next whole answer (head, and the body its Content-Length announces unless `headOnly`;
  // a 1xx answer has none), exactly as received. "" when the connection ended or kWait passed
  // first. Bytes after the answer are kept for the next call.
  std::string ReadAnswer(bool headOnly = false) {
    const auto deadline = SteadyClock::now() + kWait;
    for (;;) {
      if (size_t n = AnswerLength(pending_, headOnly); n > 0) {
        std::string answer = pending_.substr(0, n);
        pending_.erase(0, n);
        return answer;
      }
      if (closed_ || SteadyClock::now() >= deadline) return "";
      ReadSome();
    }
  }

  // Reads until the server ends the connection (close_notify, end-of-file or a reset) and
  // returns whatever arrived unread before that; nullopt when it is still open after kWait.
  std::optional<std::string> ReadToEnd() {
    const auto deadline = SteadyClock::now() + kWait;
    while (!closed_) {
      if (SteadyClock::now() >= deadline) return std::nullopt;
      ReadSome();
    }
    return std::exchange(pending_, "");
  }

  bool closed() const { return closed_; }

  // Bytes the server has written that the kernel holds for this client, unread: on loopback, a
  // write is here when it returns.
  size_t Arrived() const {
    int n = 0;
    return ::ioctl(fd_, FIONREAD, &n) == 0 ? static_cast<size_t>(n) : 0;
  }

 private:
  // The length of the whole answer at the start of `bytes`, or 0 when it has not all arrived.
  static size_t AnswerLength(std::string_view bytes, bool headOnly) {
    size_t end = bytes.find("\r\n\r\n");
    if (end == std::string_view::npos) return 0;
    const size_t head = end + 4;
    if (headOnly || bytes.starts_with("HTTP/1.1 1")) return head;
    constexpr std::string_view kLength = "\r\nContent-Length: ";
    size_t at = bytes.substr(0, end).find(kLength);
    size_t length = at == std::string_view::npos
                        ? 0
                        : std::stoul(std::string(bytes.substr(at + kLength.size())));
    return bytes.size() >= head + length ? head + length : 0;
  }

  // Reads what arrives within 100 ms into pending_; sets closed_ when the connection ended.
  void ReadSome() {
    char buf[16 << 10];
    if (ssl_) {
      int n = SSL_read(ssl_.get(), buf, sizeof buf);
      int err = n > 0 ? SSL_ERROR_NONE : SSL_get_error(ssl_.get(), n);
      ERR_clear_error();
      if (n > 0) pending_.append(buf, static_cast<size_t>(n));
      if (n <= 0 && err != SSL_ERROR_WANT_READ && err != SSL_ERROR_WANT_WRITE) closed_ = true;
      return;
    }
    ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
    if (n > 0) {
      pending_.append(buf, static_cast<size_t>(n));
    } else if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
      closed_ = true;
    }
  }

  int fd_ = -1;
  tls::SslPtr ssl_;
  std::string pending_;  // received, not yet returned
  bool closed_ = false;
};

inline std::string Get(std::string_view path, std::string_view method = "GET") {
  return std::string(method) + " " + std::string(path) + " HTTP/1.1\r\nHost: gpugate\r\n\r\n";
}

// The exact bytes of a text/plain answer ("200 OK", "/a\n"), as the client receives them.
inline std::string Wire(std::string_view status, std::string_view body, bool close = false) {
  return "HTTP/1.1 " + std::string(status) +
         "\r\nContent-Type: text/plain\r\nContent-Length: " + std::to_string(body.size()) +
         (close ? "\r\nConnection: close" : "") + "\r\n\r\n" + std::string(body);
}

// The default handler: answers "<path>\n<body>".
inline void Echo(const Request& req, Response& res) {
  res.Set(200, std::string(req.head.path) + "\n" + std::string(req.body));
}

// The default head check: reads every request.
inline HeadVerdict ReadAll(const Request&, Response&) { return HeadVerdict::kRead; }

// Small and quick to observe; each test changes what it is about.
inline Tuning TestTuning() {
  Tuning t;
  t.threads = 2;
  return t;
}

// Runs one EventServer on a free port, Run() on its own thread; TearDown stops and joins it.
class EventServerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // As serve_command does: the server and these clients write with write(2), which raises
    // SIGPIPE on a connection the peer has closed.
    std::signal(SIGPIPE, SIG_IGN);
  }

  void TearDown() override {
    if (!server_) return;
    if (!StopWithin(kWait)) ADD_FAILURE() << "Run() did not return within 5 s of Stop()";
    runner_.join();
  }

  bool Start(const Tuning& tuning, EventServer::Handler handler = Echo,
             EventServer::HeadCheck check = ReadAll) {
    server_ = std::make_unique<EventServer>(tuning, ServerContext(), std::move(check),
                                            std::move(handler));
    auto port = server_->Listen({"127.0.0.1", 0});
    if (!port) {
      ADD_FAILURE() << port.error().message;
      server_.reset();
      return false;
    }
    port_ = *port;
    std::packaged_task<void()> run([server = server_.get()] { server->Run(); });
    ran_ = run.get_future();
    runner_ = std::thread(std::move(run));
    return true;
  }

  // Stops the server; true when Run() returned within `limit`.
  bool StopWithin(std::chrono::seconds limit) {
    server_->Stop();
    return ran_.wait_for(limit) == std::future_status::ready;
  }

  // A client that has completed its TLS handshake.
  std::unique_ptr<Client> Connect() {
    auto client = std::make_unique<Client>(port_);
    EXPECT_TRUE(client->Handshake()) << "handshake with the server failed";
    return client;
  }

  std::unique_ptr<EventServer> server_;
  int port_ = 0;
  std::thread runner_;
  std::future<void> ran_;
};

}  // namespace gpugate::transport::testutil
