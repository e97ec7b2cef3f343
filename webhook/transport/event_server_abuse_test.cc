// EventServer against peers that abuse it (transport/testing.h): heads dribbled one byte per TLS
// record, bare CRs. Each test asserts the work the server did and what the peer saw, never time.
#include <gtest/gtest.h>

#include <string>

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

}  // namespace
}  // namespace gpugate::transport
