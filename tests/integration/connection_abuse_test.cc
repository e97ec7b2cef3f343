// Connection abuse against the real `gpugate serve` over real TLS: hundreds of idle TCP
// connections, half-sent ClientHellos, slow header senders and slow body senders must not keep
// a real caller waiting, and each is closed once its handshake, headers or body take longer than
// the server allows (transport/tuning.h: 10 s each by default; the test of the deadlines sets
// them shorter through the config file's `server` section). connections_test.cc covers honest
// kept-alive connections; docs/reliability.md ("Connection abuse") has the results.
#include <gtest/gtest.h>
#include <httplib.h>
#include <openssl/ssl.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "gpugate_process.h"
#include "raw_connection.h"
#include "review_builder.h"
#include "support/eventually.h"

namespace gpugate::testing {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

using Connections = std::vector<std::unique_ptr<RawConnection>>;

// A slow header sender never finishes its headers: this is all it ever sends, a byte at a time.
const std::string kSlowHeaders =
    "POST /validate HTTP/1.1\r\nHost: gpugate\r\nContent-Type: application/json\r\nX-Slow: " +
    std::string(4096, 's');

// `n` TCP connections that send nothing at all.
Connections Idle(int port, int n) {
  Connections out;
  for (int i = 0; i < n; ++i) out.push_back(std::make_unique<RawConnection>(port));
  return out;
}

// `n` connections that send the first three bytes of a TLS record header and stop.
Connections HalfHandshakes(int port, int n) {
  Connections out = Idle(port, n);
  for (auto& c : out) EXPECT_TRUE(c->Send("\x16\x03\x01"));
  return out;
}

// `n` connections with a finished TLS handshake, not yet sending.
Connections Handshaken(int port, int n) {
  Connections out = Idle(port, n);
  for (auto& c : out) EXPECT_TRUE(c->StartTls(5s));
  return out;
}

// A slow body sender sends whole headers promising this much, then the body a byte at a time.
const std::string kSlowBodyHead =
    "POST /validate HTTP/1.1\r\nHost: gpugate\r\nContent-Type: application/json\r\n"
    "Content-Length: 100000\r\n\r\n";

// `n` handshaken connections that have sent kSlowBodyHead.
Connections BodyStarted(int port, int n) {
  Connections out = Handshaken(port, n);
  for (auto& c : out) EXPECT_TRUE(c->Send(kSlowBodyHead));
  return out;
}

// The ClientHello an OpenSSL client opens a handshake with.
std::string ClientHello() {
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  SSL* ssl = SSL_new(ctx);
  BIO* out = BIO_new(BIO_s_mem());
  SSL_set_bio(ssl, BIO_new(BIO_s_mem()), out);
  SSL_connect(ssl);  // writes the ClientHello, then wants the server's answer
  char* data = nullptr;
  // Two statements: in one, the order of evaluating `data` and the call that sets it is the
  // compiler's choice (GCC happened to call first, clang reads the null first).
  const long size = BIO_get_mem_data(out, &data);
  std::string hello(data, static_cast<size_t>(size));
  SSL_free(ssl);
  SSL_CTX_free(ctx);
  return hello;
}

// How often a slow sender sends its next byte: far too slow to finish a request (20 bytes a
// second), and often enough that every read the server makes comes well within any deadline
// the tests set, so only a deadline on the phase as a whole can close the connection.
constexpr auto kSlowByteEvery = 50ms;

// Sends `text` one byte every kSlowByteEvery on each connection, from its own thread, until
// stopped (never all of it); counts writes that failed (the server closed the connection).
class SlowSender {
 public:
  SlowSender(Connections& conns, std::string text)
      : conns_(conns), text_(std::move(text)), thread_([this] { Run(); }) {}
  ~SlowSender() {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }
  int bytesSent() const { return sent_; }
  int failedWrites() const { return failed_; }
  int writes() const { return sent_ + failed_; }

 private:
  void Run() {
    std::unique_lock lock(mu_);
    for (size_t at = 0; !wake_.wait_for(lock, kSlowByteEvery, [this] { return stop_; }); ++at) {
      for (auto& c : conns_) {
        if (c->Send(text_.substr(at % text_.size(), 1))) {
          ++sent_;
        } else {
          ++failed_;
        }
      }
    }
  }

  Connections& conns_;
  const std::string text_;
  std::mutex mu_;
  std::condition_variable wake_;
  bool stop_ = false;  // guarded by mu_
  std::atomic<int> sent_{0};
  std::atomic<int> failed_{0};
  std::thread thread_;  // last: starts once everything above exists
};

int CountClosed(const Connections& conns) {
  int closed = 0;
  for (const auto& c : conns) closed += c->PeerClosed() ? 1 : 0;
  return closed;
}

const std::string& ValidReview() {
  static const std::string review =
      MakeReview(GpuPod("real", json::array({json{{"nvidia.com/gpu", "1"}}}))).dump();
  return review;
}

// The value of a Prometheus sample (name with labels), or -1.
double Sample(const std::string& text, const std::string& name) {
  size_t at = text.find("\n" + name + " ");
  return at == std::string::npos ? -1 : std::stod(text.substr(at + name.size() + 2));
}

// 600 abusers: more than cpp-httplib's thread per connection allowed before (512 threads).
TEST(ConnectionAbuse, ARealCallerIsAnsweredWhileAbusersHoldConnections) {
  GpugateServer server;
  const auto opened = Clock::now();
  Connections idle = Idle(server.port(), 400);
  Connections half = HalfHandshakes(server.port(), 100);
  Connections slow = Handshaken(server.port(), 50);
  Connections slowBody = BodyStarted(server.port(), 50);
  SlowSender sender(slow, kSlowHeaders);
  SlowSender bodySender(slowBody, std::string(1000, ' '));
  for (const Connections* group : {&idle, &half, &slow, &slowBody}) {
    for (const auto& c : *group) ASSERT_TRUE(c->ok());
  }
  // Each slow one has begun.
  while (sender.writes() < 100 || bodySender.writes() < 100) std::this_thread::sleep_for(10ms);

  // A fresh TLS connection with a review, bounded well under the abusers' 10 s deadlines: an
  // answer within it did not wait for any of them to be closed.
  auto client = server.Client();
  client->set_connection_timeout(5, 0);
  client->set_read_timeout(5, 0);
  const auto asked = Clock::now();
  auto res = client->Post("/validate", ValidReview(), "application/json");
  const auto answered = Clock::now();
  ASSERT_TRUE(res) << httplib::to_string(res.error());
  EXPECT_EQ(res->status, 200);
  json review = json::parse(res->body);
  EXPECT_TRUE(review["response"]["allowed"].get<bool>()) << res->body;
  EXPECT_EQ(review["response"]["uid"], "3f4c2a1e-0000-4000-8000-000000000001");
  std::printf(
      "connection abuse: real caller answered in %.1f ms with 600 abusive connections "
      "open (opened %.0f ms before)\n",
      std::chrono::duration<double, std::milli>(answered - asked).count(),
      std::chrono::duration<double, std::milli>(asked - opened).count());

  // Every abuser is still connected: the answer did not come from their being cut off.
  EXPECT_EQ(CountClosed(idle), 0);
  EXPECT_EQ(CountClosed(half), 0);
  EXPECT_EQ(CountClosed(slow), 0);
  EXPECT_EQ(CountClosed(slowBody), 0);
  const int sentBefore = sender.writes();
  const int bodySentBefore = bodySender.writes();
  while (sender.writes() < sentBefore + 50 || bodySender.writes() < bodySentBefore + 50) {
    std::this_thread::sleep_for(10ms);
  }
  EXPECT_EQ(sender.failedWrites(), 0);
  EXPECT_EQ(bodySender.failedWrites(), 0);
  EXPECT_LT(answered - opened, 9s) << "the check above raced the abusers' deadlines";
}

// The phase deadlines, shortened from 10 s so the test takes a second; kept-alive idling keeps
// its 120 s default.
constexpr char kShortDeadlines[] =
    "server:\n  handshakeTimeout: 500ms\n  headerTimeout: 500ms\n  bodyTimeout: 500ms\n";

TEST(ConnectionAbuse, StalledHandshakesSlowHeadersAndSlowBodiesAreClosed) {
  TempDir dir;
  dir.Write("gpugate.yaml", kShortDeadlines);
  GpugateServer server({"--config", dir.File("gpugate.yaml")});
  // An honest connection that made a request and now idles between requests must be left alone:
  // the deadlines cover a handshake and a request's headers and body, not keep-alive idling
  // (120 s), however long it idles past them.
  RawConnection honest(server.port());
  ASSERT_TRUE(honest.StartTls(5s));
  const std::string request =
      "POST /validate HTTP/1.1\r\nHost: gpugate\r\nContent-Type: "
      "application/json\r\nContent-Length: " +
      std::to_string(ValidReview().size()) + "\r\n\r\n" + ValidReview();
  ASSERT_TRUE(honest.Send(request));
  ASSERT_EQ(StatusOf(honest.ReadResponse(5s)), 200);

  const auto opened = Clock::now();
  Connections idle = Idle(server.port(), 5);
  Connections half = HalfHandshakes(server.port(), 5);
  Connections slowHello = Idle(server.port(), 5);
  Connections slow = Handshaken(server.port(), 5);
  Connections slowBody = BodyStarted(server.port(), 5);
  SlowSender helloSender(slowHello, ClientHello());
  SlowSender sender(slow, kSlowHeaders);
  SlowSender bodySender(slowBody, std::string(1000, ' '));

  // The server's deadlines are 500 ms. The bound is ten times that, and half the default
  // deadlines, so a server that ignored the file's would fail here rather than pass slowly.
  const auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(opened + 5s - Clock::now());
  auto closed = [&] {
    return CountClosed(idle) + CountClosed(half) + CountClosed(slowHello) + CountClosed(slow) +
           CountClosed(slowBody);
  };
  Eventually([&] { return closed() == 25; }, left);
  const double seconds = std::chrono::duration<double>(Clock::now() - opened).count();
  EXPECT_EQ(CountClosed(idle), 5) << "idle TCP connections still open after " << seconds << " s";
  EXPECT_EQ(CountClosed(half), 5) << "half handshakes still open after " << seconds << " s";
  EXPECT_EQ(CountClosed(slowHello), 5) << "slow ClientHellos still open after " << seconds << " s, "
                                       << helloSender.bytesSent() << " bytes sent";
  EXPECT_EQ(CountClosed(slow), 5) << "slow header senders still open after " << seconds << " s, "
                                  << sender.bytesSent() << " bytes sent";
  EXPECT_EQ(CountClosed(slowBody), 5) << "slow body senders still open after " << seconds << " s, "
                                      << bodySender.bytesSent() << " bytes sent";
  std::printf(
      "connection abuse: stalled handshakes, slow headers and slow bodies closed after %.1f s\n",
      seconds);

  // The honest connection is still open and still served, having idled longer than the other
  // phases' deadlines: the abusers were opened after it went idle, and closed at theirs.
  EXPECT_FALSE(honest.PeerClosed());
  ASSERT_TRUE(honest.Send(request));
  EXPECT_EQ(StatusOf(honest.ReadResponse(5s)), 200);

  auto metrics = server.Client()->Get("/metrics");
  ASSERT_TRUE(metrics);
  // Each closed by its own phase's deadline: idle, half-sent and slow handshakes; slow headers;
  // slow bodies. The honest connection idles under the 120 s keep-alive time.
  for (const auto& [phase, closed] :
       {std::pair{"handshake", 15}, {"headers", 5}, {"body", 5}, {"idle", 0}}) {
    EXPECT_EQ(Sample(metrics->body, "gpugate_http_connections_timed_out_total{phase=\"" +
                                        std::string(phase) + "\"}"),
              closed)
        << phase << "\n"
        << metrics->body;
  }
}

// A /proc/PID/status field in KiB ("VmHWM"), or -1.
long StatusKiB(pid_t pid, const std::string& field) {
  std::string status = ReadFile("/proc/" + std::to_string(pid) + "/status");
  size_t at = status.find("\n" + field + ":");
  return at == std::string::npos ? -1 : std::stol(status.substr(at + field.size() + 2));
}

// 64 connections each declaring an 8 MiB body and sending all but its last byte: before the
// request-byte budget this took the server's RSS past 600 MiB within seconds, beyond the
// Deployment's 512Mi limit. With the default budget (64 MiB, of which requests over 1 MiB may
// hold 48 MiB) six are admitted and the other 58 are refused with 503 before their body is
// read; a real review is answered while the six hold their bytes, and the bytes held never pass
// the budget. Each abuser asks with `Expect: 100-continue`, so the test knows which were
// admitted (and sends 48 MiB, not 512) without waiting on a clock.
TEST(ConnectionAbuse, LargeBodiesNeverFinishedStayWithinTheRequestByteBudget) {
  constexpr size_t kBody = 8 << 20;
  GpugateServer server;
  const std::string head =
      "POST /validate HTTP/1.1\r\nHost: gpugate\r\nContent-Type: application/json\r\n"
      "Expect: 100-continue\r\nContent-Length: " +
      std::to_string(kBody) + "\r\n\r\n";
  const std::string body(kBody - 1, ' ');
  Connections admitted;
  int refused = 0;
  for (int i = 0; i < 64; ++i) {
    auto c = std::make_unique<RawConnection>(server.port());
    ASSERT_TRUE(c->StartTls(5s));
    ASSERT_TRUE(c->Send(head));
    const std::string answer = c->ReadResponse(5s);
    if (StatusOf(answer) == 100) {
      ASSERT_TRUE(c->Send(body)) << "abuser " << i;
      admitted.push_back(std::move(c));
    } else {
      EXPECT_EQ(StatusOf(answer), 503) << answer;
      ++refused;
    }
  }
  EXPECT_EQ(admitted.size(), 6u);
  EXPECT_EQ(refused, 58);

  auto client = server.Client();
  client->set_read_timeout(5, 0);
  auto res = client->Post("/validate", ValidReview(), "application/json");
  ASSERT_TRUE(res) << httplib::to_string(res.error());
  EXPECT_EQ(res->status, 200);
  EXPECT_TRUE(json::parse(res->body)["response"]["allowed"].get<bool>()) << res->body;

  auto metrics = server.Client()->Get("/metrics");
  ASSERT_TRUE(metrics);
  const double budget = Sample(metrics->body, "gpugate_http_request_buffer_budget_bytes");
  EXPECT_EQ(budget, double(64 << 20));
  EXPECT_LE(Sample(metrics->body, "gpugate_http_request_buffer_peak_bytes"), budget);
  EXPECT_GE(Sample(metrics->body, "gpugate_http_request_buffer_bytes"), 6.0 * (kBody - 16384));
  EXPECT_EQ(Sample(metrics->body, "gpugate_http_requests_over_budget_total"), 58);
  EXPECT_EQ(CountClosed(admitted), 0) << "the admitted abusers are still waiting for their answer";
  const long peakKiB = StatusKiB(server.pid(), "VmHWM");
  std::printf("large bodies never finished: %zu admitted, %d refused, server peak RSS %ld KiB\n",
              admitted.size(), refused, peakKiB);
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
  // The budget, the process's own memory and 64 TLS connections: far from 512Mi. (Sanitizers
  // keep freed memory in quarantine, so their trees do not check it.)
  EXPECT_LT(peakKiB, 192 << 10);
#endif
}

}  // namespace
}  // namespace gpugate::testing
