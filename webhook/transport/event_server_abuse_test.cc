// EventServer against peers that abuse it (transport/testing.h): heads dribbled one byte per TLS
// record, bare CRs, dribblers queued on every serving thread. Each test asserts the work the server
// did and what the peer saw, never time.
#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "transport/event_server.h"
#include "transport/testing.h"

namespace gpugate::transport {
namespace {

using namespace testutil;

// The value of an unlabelled Prometheus sample, or -1.
double Sample(const std::string& metrics, const std::string& name) {
  const size_t at = metrics.find("\n" + name + " ");
  return at == std::string::npos ? -1 : std::stod(metrics.substr(at + name.size() + 2));
}

constexpr char kScanned[] = "gpugate_http_request_head_bytes_scanned_total";

// Sends `bytes` one per TLS record.
bool Dribble(Client& c, std::string_view bytes) {
  for (char b : bytes) {
    if (!c.Send(std::string_view(&b, 1))) return false;
  }
  return true;
}

// A 39 KB head sent one byte per TLS record: the server examines each byte at most twice (once
// for its line's end, once in its line), as it would for the head sent whole. The parser this
// replaced scanned the whole buffer again on every record: n²/2, about 760 million bytes here.
TEST_F(EventServerTest, ExaminesADribbledHeadLinearly) {
  ASSERT_TRUE(Start(TestTuning()));
  std::string head = "GET /dribbled HTTP/1.1\r\nHost: gpugate\r\n";
  for (int i = 0; i < 64; ++i)
    head += "X-Pad-" + std::to_string(i) + ": " + std::string(600, 'p') + "\r\n";
  head += "\r\n";
  auto c = Connect();
  ASSERT_TRUE(Dribble(*c, head));
  EXPECT_EQ(c->ReadAnswer(), Wire("200 OK", "/dribbled\n"));
  const double scanned = Sample(server_->RenderMetrics(), kScanned);
  EXPECT_GE(scanned, double(head.size()));
  EXPECT_LE(scanned, 2.0 * double(head.size()));
}

// A CR not followed by LF is refused when the byte after it arrives (RFC 9112 §2.2), whatever
// follows: the peer that goes on sending 32 KiB of CRs is answered 400 after the second.
TEST_F(EventServerTest, RefusesABareCrWhenTheNextByteArrives) {
  ASSERT_TRUE(Start(TestTuning()));
  auto c = Connect();
  const std::string requestLine = "GET /healthz HTTP/1.1\r\n";
  ASSERT_TRUE(Dribble(*c, requestLine + "\r\r"));
  EXPECT_EQ(c->ReadAnswer(),
            Wire("400 Bad Request", "a CR not followed by LF in the request head\n",
                 /*close=*/true));
  // What it sends after the refusal is discarded unread, and the connection ends.
  Dribble(*c, std::string(32 << 10, '\r'));
  EXPECT_EQ(c->ReadToEnd(), "");
  EXPECT_LE(Sample(server_->RenderMetrics(), kScanned), 2.0 * double(requestLine.size() + 2));
}

// The order in which the handler saw requests, by path.
class Order {
 public:
  void Saw(std::string_view path) {
    std::lock_guard lock(mu_);
    paths_.emplace_back(path);
  }
  std::vector<std::string> paths() const {
    std::lock_guard lock(mu_);
    return paths_;
  }

 private:
  mutable std::mutex mu_;
  std::vector<std::string> paths_;
};

// Probes are answered while dribblers would hold every serving thread. Two serving threads are
// held in a handler (a busy thread, from the server's side) while four clients queue a head of
// 2,000 bytes each, one byte per TLS record, and two probes arrive behind them. Once released,
// each thread takes a dribbler for at most 16 records, then lets the next connection in line
// have it: both probes are answered before any dribbler's request completes (125 turns each).
// Before, a connection kept its thread until it had no bytes left or a request was answered,
// so the four heads were read to the end first.
TEST_F(EventServerTest, ProbesAreAnsweredWhileDribblersQueueOnEveryThread) {
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<int> holding = 0;
  Order order;
  auto handler = [&](const Request& req, Response& res) {
    if (req.head.path == "/hold") {
      ++holding;
      released.wait();  // stands for a handler busy on the CPU
    } else {
      order.Saw(req.head.path);
    }
    Echo(req, res);
  };
  Tuning tuning = TestTuning();
  tuning.threads = 2;
  ASSERT_TRUE(Start(tuning, handler));
  std::vector<std::unique_ptr<Client>> holders, dribblers;
  for (int i = 0; i < 2; ++i) holders.push_back(Connect());
  for (int i = 0; i < 4; ++i) dribblers.push_back(Connect());
  auto healthz = Connect();
  auto readyz = Connect();

  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(holders[i]->Send(Get("/hold")));
    ASSERT_TRUE(Eventually([&] { return holding == i + 1; }, kWait)) << "hold " << i;
  }
  for (size_t i = 0; i < dribblers.size(); ++i) {
    std::string head =
        "GET /dribble-" + std::to_string(i) + " HTTP/1.1\r\nHost: gpugate\r\nX-Slow: ";
    head += std::string(2000 - head.size() - 4, 's') + "\r\n\r\n";
    ASSERT_TRUE(Dribble(*dribblers[i], head));  // 2,000 records, queued in the socket buffers
  }
  ASSERT_TRUE(healthz->Send(Get("/healthz")));
  ASSERT_TRUE(readyz->Send(Get("/readyz")));
  release.set_value();

  EXPECT_EQ(healthz->ReadAnswer(), Wire("200 OK", "/healthz\n"));
  EXPECT_EQ(readyz->ReadAnswer(), Wire("200 OK", "/readyz\n"));
  for (size_t i = 0; i < dribblers.size(); ++i) {
    EXPECT_EQ(dribblers[i]->ReadAnswer(), Wire("200 OK", "/dribble-" + std::to_string(i) + "\n"));
  }
  const std::vector<std::string> seen = order.paths();
  ASSERT_EQ(seen.size(), 6u);
  EXPECT_EQ(std::set<std::string>(seen.begin(), seen.begin() + 2),
            (std::set<std::string>{"/healthz", "/readyz"}))
      << "the order requests were handled in: " << ::testing::PrintToString(seen);
  EXPECT_GE(Sample(server_->RenderMetrics(), "gpugate_http_turns_yielded_total"), 4 * 124);
}

// Abusers declaring large bodies and never sending their last byte hold the request-byte budget
// only up to its large share; the rest are refused with 503 before their body is read, and an
// ordinary review is answered meanwhile. The bytes held never pass the budget.
TEST_F(EventServerTest, LargeBodiesAreRefusedPastTheBudgetWhileOrdinaryReviewsGoOn) {
  constexpr size_t kMiB = 1 << 20;
  Tuning tuning = TestTuning();
  tuning.bufferedRequestBytes = 8 * kMiB;  // 6 MiB for requests over 1 MiB
  ASSERT_TRUE(Start(tuning));
  const size_t body = 2 * kMiB;
  const std::string head =
      "POST /big HTTP/1.1\r\nHost: gpugate\r\nExpect: 100-continue\r\n"
      "Content-Length: " +
      std::to_string(body) + "\r\n\r\n";
  std::vector<std::unique_ptr<Client>> admitted;
  int refused = 0;
  for (int i = 0; i < 8; ++i) {
    auto c = Connect();
    ASSERT_TRUE(c->Send(head));
    const std::string answer = c->ReadAnswer();
    if (answer == "HTTP/1.1 100 Continue\r\n\r\n") {
      ASSERT_TRUE(c->Send(std::string(body - 1, 'x')));  // all but the last byte
      admitted.push_back(std::move(c));
      continue;
    }
    EXPECT_TRUE(answer.starts_with("HTTP/1.1 503 Service Unavailable\r\n")) << answer;
    EXPECT_NE(answer.find("\r\nConnection: close\r\n"), std::string::npos) << answer;
    ++refused;
  }
  // Three bodies of 2 MiB fit in the 6 MiB share (each holds 16 KiB less: a connection's first
  // 16 KiB are its own); a fourth would not.
  EXPECT_EQ(admitted.size(), 3u);
  EXPECT_EQ(refused, 5);

  // An ordinary review of 300 KB is answered while the abusers hold their share.
  auto real = Connect();
  const std::string review(300'000, 'r');
  ASSERT_TRUE(real->Send("POST /validate HTTP/1.1\r\nHost: gpugate\r\nContent-Length: " +
                         std::to_string(review.size()) + "\r\n\r\n" + review));
  EXPECT_EQ(real->ReadAnswer(), Wire("200 OK", "/validate\n" + review));

  std::string metrics = server_->RenderMetrics();
  EXPECT_EQ(Sample(metrics, "gpugate_http_requests_over_budget_total"), 5);
  EXPECT_EQ(Sample(metrics, "gpugate_http_request_buffer_budget_bytes"), double(8 * kMiB));
  EXPECT_LE(Sample(metrics, "gpugate_http_request_buffer_peak_bytes"), double(8 * kMiB));
  EXPECT_GE(Sample(metrics, "gpugate_http_request_buffer_bytes"), double(3 * (body - 16'384)));

  // Their last bytes arrive: each is answered, and once idle they hold nothing.
  for (auto& c : admitted) {
    ASSERT_TRUE(c->Send("x"));
    EXPECT_TRUE(c->ReadAnswer().starts_with("HTTP/1.1 200 OK\r\n"));
  }
  EXPECT_TRUE(Eventually(
      [&] { return Sample(server_->RenderMetrics(), "gpugate_http_request_buffer_bytes") == 0; },
      kWait));
  EXPECT_LE(Sample(server_->RenderMetrics(), "gpugate_http_request_buffer_peak_bytes"),
            double(8 * kMiB));
}

}  // namespace
}  // namespace gpugate::transport
