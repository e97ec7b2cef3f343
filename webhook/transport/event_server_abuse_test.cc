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
    ASSERT_TRUE(Eventually([&] { return holding == i + 1; })) << "hold " << i;
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

}  // namespace
}  // namespace gpugate::transport
