#include "transport/open_connections.h"

#include <gtest/gtest.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <future>
#include <memory>
#include <string>

#include "certs/certificates.h"

namespace gpugate::transport {
namespace {

using namespace std::chrono_literals;

// A bound on every wait here: a deadline that is not enforced fails the test instead of hanging
// it. Deadlines under test are 100 ms, so enforcement comes within a few watchdog ticks.
constexpr auto kBound = 5s;
constexpr ConnectionDeadlines kShort{.handshake = 100ms, .headers = 100ms};

// A server context with a fresh certificate (one per process: issuing one takes a while).
SSL_CTX* NewServerContext() {
  static const certs::CertBundle bundle = [] {
    auto issued = certs::IssueCertificates({});
    EXPECT_TRUE(issued.has_value());
    return issued.value_or(certs::CertBundle{});
  }();
  SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
  BIO* cert = BIO_new_mem_buf(bundle.serverCertPem.data(), -1);
  BIO* key = BIO_new_mem_buf(bundle.serverKeyPem.data(), -1);
  X509* x509 = PEM_read_bio_X509(cert, nullptr, nullptr, nullptr);
  EVP_PKEY* pkey = PEM_read_bio_PrivateKey(key, nullptr, nullptr, nullptr);
  EXPECT_EQ(SSL_CTX_use_certificate(ctx, x509), 1);
  EXPECT_EQ(SSL_CTX_use_PrivateKey(ctx, pkey), 1);
  X509_free(x509);
  EVP_PKEY_free(pkey);
  BIO_free(cert);
  BIO_free(key);
  return ctx;
}

// A tracked server end and a plain client end of a socket pair; the server end blocks, as
// httplib's sockets do while a worker waits in SSL_accept or SSL_read.
class Pair {
 public:
  explicit Pair(ConnectionDeadlines deadlines) {
    // OpenSSL writes an alert to a socket the watchdog shut down; gpugate ignores SIGPIPE too.
    signal(SIGPIPE, SIG_IGN);
    connections_.EnforceDeadlines(deadlines);
    serverCtx_ = NewServerContext();
    connections_.Track(*serverCtx_);
    int fds[2];
    EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
    serverFd_ = fds[0];
    clientFd_ = fds[1];
    server_ = SSL_new(serverCtx_);
    SSL_set_fd(server_, serverFd_);
    clientCtx_ = SSL_CTX_new(TLS_client_method());
    client_ = SSL_new(clientCtx_);
    SSL_set_fd(client_, clientFd_);
  }
  ~Pair() {
    SSL_free(server_);  // before the context and the tracker, as httplib does
    SSL_free(client_);
    SSL_CTX_free(serverCtx_);
    SSL_CTX_free(clientCtx_);
    close(serverFd_);
    close(clientFd_);
  }

  OpenConnections& connections() { return connections_; }
  SSL* server() { return server_; }
  int clientFd() const { return clientFd_; }

  // Both handshakes, each on its own thread; true when both succeed.
  bool Handshake() {
    auto accepted = std::async(std::launch::async, [this] { return SSL_accept(server_) == 1; });
    bool connected = SSL_connect(client_) == 1;
    return accepted.wait_for(kBound) == std::future_status::ready && accepted.get() && connected;
  }
  bool ClientSends(const std::string& bytes) {
    return SSL_write(client_, bytes.data(), static_cast<int>(bytes.size())) ==
           static_cast<int>(bytes.size());
  }
  // Whether the server side was shut down: its socket reads end-of-file (the client end, which
  // sent nothing more, sees the shutdown as end-of-file too).
  bool ShutDownWithin(std::chrono::milliseconds timeout) const {
    pollfd p{clientFd_, POLLRDHUP, 0};
    return poll(&p, 1, static_cast<int>(timeout.count())) == 1 && (p.revents & POLLRDHUP);
  }

 private:
  OpenConnections connections_;
  SSL_CTX* serverCtx_ = nullptr;
  SSL_CTX* clientCtx_ = nullptr;
  SSL* server_ = nullptr;
  SSL* client_ = nullptr;
  int serverFd_ = -1;
  int clientFd_ = -1;
};

// Whether `f` (the server's side, blocked on the pair) finishes within the bound. When it does
// not, the client hangs up so that it does, and the test fails instead of hanging.
template <typename T>
bool FinishesInTime(std::future<T>& f, const Pair& pair) {
  if (f.wait_for(kBound) == std::future_status::ready) return true;
  shutdown(pair.clientFd(), SHUT_RDWR);
  f.wait();
  return false;
}

TEST(OpenConnections, AHandshakeThatNeverFinishesIsShutDown) {
  Pair pair(kShort);
  // The client sends half a record header and stops; the server waits in SSL_accept.
  ASSERT_EQ(write(pair.clientFd(), "\x16\x03\x01", 3), 3);
  auto accepted = std::async(std::launch::async, [&] { return SSL_accept(pair.server()); });
  ASSERT_TRUE(FinishesInTime(accepted, pair)) << "SSL_accept still waiting";
  EXPECT_NE(accepted.get(), 1);
  EXPECT_NE(pair.connections().RenderMetrics().find("{phase=\"handshake\"} 1\n"), std::string::npos)
      << pair.connections().RenderMetrics();
  ERR_clear_error();
}

TEST(OpenConnections, HeadersThatNeverFinishAreShutDown) {
  Pair pair(kShort);
  ASSERT_TRUE(pair.Handshake());
  // A request's first bytes arrive and the server reads them; the rest never comes.
  ASSERT_TRUE(pair.ClientSends("POST /validate HTTP/1.1\r\n"));
  auto read = std::async(std::launch::async, [&] {
    char buf[256];
    int total = 0;
    for (int n; (n = SSL_read(pair.server(), buf, sizeof buf)) > 0;) total += n;
    return total;
  });
  ASSERT_TRUE(FinishesInTime(read, pair)) << "SSL_read still waiting";
  EXPECT_EQ(read.get(), 25);
  EXPECT_NE(pair.connections().RenderMetrics().find("{phase=\"headers\"} 1\n"), std::string::npos)
      << pair.connections().RenderMetrics();
  ERR_clear_error();
}

TEST(OpenConnections, IdleAndBusyConnectionsHaveNoDeadline) {
  Pair pair(kShort);
  ASSERT_TRUE(pair.Handshake());
  // Idle after the handshake: httplib's keep-alive timeout governs, not the watchdog.
  EXPECT_FALSE(pair.ShutDownWithin(600ms));
  // Headers read (the server's pre-routing handler says so): the body and the answer take as
  // long as they take.
  ASSERT_TRUE(pair.ClientSends("POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\n"));
  char buf[256];
  ASSERT_GT(SSL_read(pair.server(), buf, sizeof buf), 0);
  pair.connections().HeadersRead(pair.server());
  ASSERT_TRUE(pair.ClientSends("01234"));  // half the body, which does not restart the clock
  ASSERT_GT(SSL_read(pair.server(), buf, sizeof buf), 0);
  EXPECT_FALSE(pair.ShutDownWithin(600ms));
  // The answer goes out: idle again, and still open.
  ASSERT_GT(SSL_write(pair.server(), "HTTP/1.1 200 OK\r\n\r\n", 19), 0);
  EXPECT_FALSE(pair.ShutDownWithin(600ms));
  EXPECT_NE(pair.connections().RenderMetrics().find("{phase=\"headers\"} 0\n"), std::string::npos);
}

TEST(OpenConnections, TheNextRequestGetsItsOwnHeadersDeadline) {
  Pair pair(kShort);
  ASSERT_TRUE(pair.Handshake());
  char buf[256];
  ASSERT_TRUE(pair.ClientSends("GET / HTTP/1.1\r\n\r\n"));
  ASSERT_GT(SSL_read(pair.server(), buf, sizeof buf), 0);
  pair.connections().HeadersRead(pair.server());
  ASSERT_GT(SSL_write(pair.server(), "HTTP/1.1 200 OK\r\n\r\n", 19), 0);
  // Kept alive, the client starts a second request and stalls.
  ASSERT_TRUE(pair.ClientSends("GET"));
  ASSERT_GT(SSL_read(pair.server(), buf, sizeof buf), 0);
  EXPECT_TRUE(pair.ShutDownWithin(std::chrono::duration_cast<std::chrono::milliseconds>(kBound)));
}

TEST(OpenConnections, NoDeadlinesNoWatchdog) {
  Pair pair({});
  ASSERT_EQ(write(pair.clientFd(), "\x16\x03\x01", 3), 3);
  auto accepted = std::async(std::launch::async, [&] { return SSL_accept(pair.server()); });
  EXPECT_FALSE(pair.ShutDownWithin(600ms));
  shutdown(pair.clientFd(), SHUT_WR);  // the client gives up; the server's read ends
  ASSERT_TRUE(FinishesInTime(accepted, pair));
  EXPECT_NE(accepted.get(), 1);
  EXPECT_NE(pair.connections().RenderMetrics().find("{phase=\"handshake\"} 0\n"),
            std::string::npos);
  ERR_clear_error();
}

}  // namespace
}  // namespace gpugate::transport
