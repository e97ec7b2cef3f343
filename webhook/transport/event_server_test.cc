// EventServer over real TLS on a free port, in process (transport/testing.h): framing,
// keep-alive, deadlines, refusals, blocking answers.
#include "transport/event_server.h"

#include <gtest/gtest.h>
#include <openssl/err.h>
#include <openssl/x509.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "transport/testing.h"

namespace gpugate::transport {
namespace {

using namespace testutil;

TEST_F(EventServerTest, AnswersPipelinedRequestsInOrder) {
  ASSERT_TRUE(Start(TestTuning()));
  auto c = Connect();
  ASSERT_TRUE(c->Send(Get("/a") + Get("/b")));  // one write, one TLS record
  EXPECT_EQ(c->ReadAnswer(), Wire("200 OK", "/a\n"));
  EXPECT_EQ(c->ReadAnswer(), Wire("200 OK", "/b\n"));
}

TEST_F(EventServerTest, SendsContinueBeforeTheBodyIsSent) {
  ASSERT_TRUE(Start(TestTuning()));
  auto c = Connect();
  ASSERT_TRUE(
      c->Send("POST /upload HTTP/1.1\r\nHost: gpugate\r\nContent-Length: 5\r\nExpect: "
              "100-continue\r\n\r\n"));
  EXPECT_EQ(c->ReadAnswer(), "HTTP/1.1 100 Continue\r\n\r\n");
  ASSERT_TRUE(c->Send("hello"));
  EXPECT_EQ(c->ReadAnswer(), Wire("200 OK", "/upload\nhello"));
}

// An HTTP/1.0 client may not understand an interim answer: its expectation is ignored, and the
// body it then sends is answered with the final answer alone.
TEST_F(EventServerTest, SendsNoContinueToAnHttp10Client) {
  Tuning tuning = TestTuning();
  tuning.threads = 1;
  ASSERT_TRUE(Start(tuning));
  auto c = Connect();
  auto other = Connect();
  ASSERT_TRUE(
      c->Send("POST /upload HTTP/1.0\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n"));
  // The one serving thread takes ready connections in turn: once the request sent after the
  // head is answered, the head has been read, and a 100 would have been sent.
  ASSERT_TRUE(other->Send(Get("/other")));
  EXPECT_EQ(other->ReadAnswer(), Wire("200 OK", "/other\n"));
  ASSERT_TRUE(c->Send("hello"));
  EXPECT_EQ(c->ReadAnswer(), Wire("200 OK", "/upload\nhello", /*close=*/true));
  EXPECT_EQ(c->ReadToEnd(), "");
}

TEST_F(EventServerTest, AnswersHeadWithTheGetsLengthAndNoBody) {
  ASSERT_TRUE(Start(TestTuning()));
  auto c = Connect();
  ASSERT_TRUE(c->Send(Get("/hello")));
  EXPECT_EQ(c->ReadAnswer(), Wire("200 OK", "/hello\n"));
  ASSERT_TRUE(c->Send(Get("/hello", "HEAD")));
  EXPECT_EQ(c->ReadAnswer(/*headOnly=*/true),
            "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 7\r\n\r\n");
  // No body bytes followed the HEAD answer: the next answer starts right after it.
  ASSERT_TRUE(c->Send(Get("/next")));
  EXPECT_EQ(c->ReadAnswer(), Wire("200 OK", "/next\n"));
}

TEST_F(EventServerTest, EndsAConnectionAfterKeepAliveMaxRequests) {
  Tuning tuning = TestTuning();
  tuning.keepAliveMaxRequests = 3;
  ASSERT_TRUE(Start(tuning));
  auto c = Connect();
  for (const char* path : {"/1", "/2"}) {
    ASSERT_TRUE(c->Send(Get(path)));
    EXPECT_EQ(c->ReadAnswer(), Wire("200 OK", std::string(path) + "\n"));
  }
  ASSERT_TRUE(c->Send(Get("/3")));
  EXPECT_EQ(c->ReadAnswer(), Wire("200 OK", "/3\n", /*close=*/true));
  EXPECT_EQ(c->ReadToEnd(), "");
}

TEST_F(EventServerTest, AnswersAfterDrainCloseTheConnection) {
  ASSERT_TRUE(Start(TestTuning()));
  auto c = Connect();
  ASSERT_TRUE(c->Send(Get("/before")));
  EXPECT_EQ(c->ReadAnswer(), Wire("200 OK", "/before\n"));
  server_->Drain();
  ASSERT_TRUE(c->Send(Get("/after")));
  EXPECT_EQ(c->ReadAnswer(), Wire("200 OK", "/after\n", /*close=*/true));
  EXPECT_EQ(c->ReadToEnd(), "");
}

TEST_F(EventServerTest, RefusesConnectionsOverMaxConnectionsUntilOneCloses) {
  Tuning tuning = TestTuning();
  tuning.maxConnections = 2;
  ASSERT_TRUE(Start(tuning));
  auto first = Connect();
  auto second = Connect();

  Client third(port_);
  EXPECT_FALSE(third.Handshake());
  EXPECT_TRUE(third.closed()) << "the server should close it, not leave it waiting";
  EXPECT_PRED_FORMAT2(::testing::IsSubstring, "\ngpugate_http_connections_refused_total 1\n",
                      server_->RenderMetrics());

  ASSERT_TRUE(second->Send(Get("/second")));  // the two admitted ones are served
  EXPECT_EQ(second->ReadAnswer(), Wire("200 OK", "/second\n"));

  first.reset();  // the server notices the close in its own time
  EXPECT_TRUE(Eventually(
      [&] {
        Client next(port_);
        return next.Handshake() && next.Send(Get("/next")) &&
               next.ReadAnswer() == Wire("200 OK", "/next\n");
      },
      kWait))
      << "no new connection was served after one of the two closed";
}

// Only `phase` counts a connection past its deadline, exactly once.
void ExpectTimedOutOnlyIn(const std::string& metrics, std::string_view phase) {
  for (const char* p : {"handshake", "idle", "headers", "body", "handling", "writing", "linger"}) {
    EXPECT_PRED_FORMAT2(::testing::IsSubstring,
                        "\ngpugate_http_connections_timed_out_total{phase=\"" + std::string(p) +
                            "\"} " + (p == phase ? "1\n" : "0\n"),
                        metrics);
  }
}

// A peer that stops partway through a phase is cut off at that phase's deadline, without an
// answer, and counted by phase (and by no other).
struct DeadlineCase {
  std::string name;
  std::chrono::milliseconds Tuning::*deadline;  // set to kShortDeadline; the others keep 10 s
  bool tls;                                     // handshake before sending
  std::string send;                             // then this, and nothing more
};

class EventServerDeadline : public EventServerTest,
                            public ::testing::WithParamInterface<DeadlineCase> {};

TEST_P(EventServerDeadline, ClosesTheStalledConnectionAndCountsIt) {
  const DeadlineCase& tc = GetParam();
  Tuning tuning = TestTuning();
  tuning.*tc.deadline = kShortDeadline;
  ASSERT_TRUE(Start(tuning));
  Client c(port_);
  if (tc.tls) {
    ASSERT_TRUE(c.Handshake());
  }
  ASSERT_TRUE(c.Send(tc.send));
  EXPECT_EQ(c.ReadToEnd(), "");
  ExpectTimedOutOnlyIn(server_->RenderMetrics(), tc.name);
}

INSTANTIATE_TEST_SUITE_P(
    , EventServerDeadline,
    ::testing::Values(DeadlineCase{"handshake", &Tuning::handshakeTimeout, false, ""},
                      DeadlineCase{"headers", &Tuning::headerTimeout, true,
                                   "POST /slow HTTP/1.1\r\nHost: gpugate\r\n"},
                      DeadlineCase{
                          "body", &Tuning::bodyTimeout, true,
                          "POST /slow HTTP/1.1\r\nHost: gpugate\r\nContent-Length: 100\r\n\r\n" +
                              std::string(10, 'x')}),
    [](const auto& info) { return info.param.name; });

// An answer that takes longer to make than handlingTimeout (here a blocking answer that waits
// for the test) ends its connection without an answer.
TEST_F(EventServerTest, ClosesAConnectionWhoseAnswerTakesPastTheHandlingDeadline) {
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  auto handler = [released](const Request&, Response& res) {
    res.blocking = [released](Response& later) {
      released.wait();
      later.Set(200, "too late\n");
    };
  };
  Tuning tuning = TestTuning();
  tuning.handlingTimeout = kShortDeadline;
  ASSERT_TRUE(Start(tuning, handler));
  auto c = Connect();
  ASSERT_TRUE(c->Send(Get("/hold")));
  EXPECT_EQ(c->ReadToEnd(), "");
  ExpectTimedOutOnlyIn(server_->RenderMetrics(), "handling");
  release.set_value();  // the worker finishes; its answer finds the connection closed
}

// A caller that stops reading an answer is cut off writeTimeout after the answer's first write.
TEST_F(EventServerTest, ClosesAConnectionThatStopsTakingItsAnswer) {
  // Far more than the socket buffers of both ends hold (a few MiB on loopback).
  auto handler = [](const Request&, Response& res) { res.Set(200, std::string(32 << 20, 'x')); };
  Tuning tuning = TestTuning();
  tuning.writeTimeout = kShortDeadline;
  ASSERT_TRUE(Start(tuning, handler));
  auto c = Connect();
  ASSERT_TRUE(c->Send(Get("/big")));  // and reads nothing until the server has given up
  EXPECT_TRUE(Eventually(
      [&] {
        return server_->RenderMetrics().find(
                   "\ngpugate_http_connections_timed_out_total{phase=\"writing\"} 1\n") !=
               std::string::npos;
      },
      kWait));
  ExpectTimedOutOnlyIn(server_->RenderMetrics(), "writing");
  const std::optional<std::string> taken = c->ReadToEnd();
  ASSERT_TRUE(taken.has_value()) << "the connection is still open";
  EXPECT_LT(taken->size(), size_t{32 << 20}) << "the whole answer arrived";
}

TEST_F(EventServerTest, RefusalReachesAClientStillSendingItsBody) {
  Tuning tuning = TestTuning();
  tuning.maxBodyBytes = 1024;
  ASSERT_TRUE(Start(tuning));
  auto c = Connect();
  ASSERT_TRUE(c->Send("POST /upload HTTP/1.1\r\nHost: gpugate\r\nContent-Length: 1500\r\n\r\n"));
  // The body goes on arriving after the server has refused the head (within the 2x cap the
  // server discards while lingering, so it never resets the connection under the answer).
  for (int i = 0; i < 15; ++i) ASSERT_TRUE(c->Send(std::string(100, 'x')));
  EXPECT_EQ(c->ReadAnswer(),
            Wire("413 Payload Too Large", "request body of 1500 bytes is over the limit of 1024\n",
                 /*close=*/true));
  EXPECT_EQ(c->ReadToEnd(), "");
}

TEST_F(EventServerTest, HeadCheckRefusesWithoutRunningTheHandler) {
  std::atomic<int> handled = 0;
  auto handler = [&](const Request& req, Response& res) {
    ++handled;
    Echo(req, res);
  };
  auto check = [](const Request& req, Response& res) {
    if (req.head.path != "/forbidden") return HeadVerdict::kRead;
    res.Set(403, "forbidden\n");
    return HeadVerdict::kRefuse;
  };
  ASSERT_TRUE(Start(TestTuning(), handler, check));
  auto c = Connect();
  ASSERT_TRUE(
      c->Send("POST /forbidden HTTP/1.1\r\nHost: gpugate\r\nContent-Length: 5\r\n\r\nhello"));
  EXPECT_EQ(c->ReadAnswer(), Wire("403 Forbidden", "forbidden\n", /*close=*/true));
  EXPECT_EQ(c->ReadToEnd(), "");
  EXPECT_EQ(handled, 0);
}

TEST_F(EventServerTest, StopEndsIdleKeptAliveConnections) {
  ASSERT_TRUE(Start(TestTuning()));
  auto a = Connect();
  auto b = Connect();
  for (Client* c : {a.get(), b.get()}) {
    ASSERT_TRUE(c->Send(Get("/idle")));
    ASSERT_EQ(c->ReadAnswer(), Wire("200 OK", "/idle\n"));
  }
  EXPECT_TRUE(StopWithin(kWait)) << "Run() did not return within 5 s of Stop()";
  EXPECT_EQ(a->ReadToEnd(), "");
  EXPECT_EQ(b->ReadToEnd(), "");
}

TEST_F(EventServerTest, HandlerThatThrowsGets500AndTheServerGoesOn) {
  auto handler = [](const Request& req, Response& res) {
    if (req.head.path == "/throw") throw std::runtime_error("boom");
    Echo(req, res);
  };
  ASSERT_TRUE(Start(TestTuning(), handler));
  auto c = Connect();
  ASSERT_TRUE(c->Send(Get("/throw")));
  EXPECT_EQ(c->ReadAnswer(), Wire("500 Internal Server Error", "internal error\n"));
  ASSERT_TRUE(c->Send(Get("/after")));  // the same connection
  EXPECT_EQ(c->ReadAnswer(), Wire("200 OK", "/after\n"));
  auto other = Connect();  // and a new one
  ASSERT_TRUE(other->Send(Get("/other")));
  EXPECT_EQ(other->ReadAnswer(), Wire("200 OK", "/other\n"));
}

// Answers that may block (Response::blocking) are finished off the serving threads: with one
// serving thread and /slow's answer held until the test releases it, another connection is
// answered meanwhile, and the held connection's pipelined request follows its answer in order.
TEST_F(EventServerTest, BlockingAnswersLeaveTheServingThreadFree) {
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  auto handler = [released](const Request& req, Response& res) {
    if (req.head.path != "/slow") return Echo(req, res);
    res.blocking = [released](Response& later) {
      released.wait();
      later.Set(200, "/slow done\n");
    };
  };
  Tuning tuning = TestTuning();
  tuning.threads = 1;
  ASSERT_TRUE(Start(tuning, handler));
  auto held = Connect();
  ASSERT_TRUE(held->Send(Get("/slow") + Get("/after")));
  auto other = Connect();
  ASSERT_TRUE(other->Send(Get("/fast")));
  EXPECT_EQ(other->ReadAnswer(), Wire("200 OK", "/fast\n"));
  release.set_value();
  EXPECT_EQ(held->ReadAnswer(), Wire("200 OK", "/slow done\n"));
  EXPECT_EQ(held->ReadAnswer(), Wire("200 OK", "/after\n"));
}

// Stop() waits for a blocking answer under way; it goes out with `Connection: close`.
TEST_F(EventServerTest, StopWaitsForABlockingAnswer) {
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<bool> blocked = false;
  auto handler = [&blocked, released](const Request&, Response& res) {
    res.blocking = [&blocked, released](Response& later) {
      blocked = true;
      released.wait();
      later.Set(200, "late\n");
    };
  };
  ASSERT_TRUE(Start(TestTuning(), handler));
  auto c = Connect();
  ASSERT_TRUE(c->Send(Get("/slow")));
  ASSERT_TRUE(Eventually([&] { return blocked.load(); }, kWait));
  server_->Stop();
  EXPECT_EQ(ran_.wait_for(200ms), std::future_status::timeout) << "Run() returned mid-answer";
  release.set_value();
  EXPECT_EQ(c->ReadAnswer(), Wire("200 OK", "late\n", /*close=*/true));
  EXPECT_EQ(ran_.wait_for(kWait), std::future_status::ready);
}

TEST_F(EventServerTest, BlockingAnswerThatThrowsGets500) {
  auto handler = [](const Request& req, Response& res) {
    if (req.head.path != "/throw") return Echo(req, res);
    res.blocking = [](Response&) { throw std::runtime_error("boom"); };
  };
  ASSERT_TRUE(Start(TestTuning(), handler));
  auto c = Connect();
  ASSERT_TRUE(c->Send(Get("/throw")));
  EXPECT_EQ(c->ReadAnswer(), Wire("500 Internal Server Error", "internal error\n"));
  ASSERT_TRUE(c->Send(Get("/after")));
  EXPECT_EQ(c->ReadAnswer(), Wire("200 OK", "/after\n"));
}

// Code on a serving thread (a handler, or the cluster layer's API client) may leave errors in
// the thread's OpenSSL error queue. SSL_get_error would read them as a TLS failure of the
// connection's next call; the server clears the queue before each call, so the connection
// goes on.
TEST_F(EventServerTest, ErrorsAHandlerLeavesInOpenSslsQueueDoNotEndTheConnection) {
  auto handler = [](const Request& req, Response& res) {
    if (req.head.path == "/dirty") ERR_raise(ERR_LIB_X509, X509_R_CERT_ALREADY_IN_HASH_TABLE);
    Echo(req, res);
  };
  Tuning tuning = TestTuning();
  tuning.threads = 1;  // the thread that ran the handler reads the next request
  ASSERT_TRUE(Start(tuning, handler));
  auto c = Connect();
  ASSERT_TRUE(c->Send(Get("/dirty")));
  EXPECT_EQ(c->ReadAnswer(), Wire("200 OK", "/dirty\n"));
  ASSERT_TRUE(c->Send(Get("/after")));
  EXPECT_EQ(c->ReadAnswer(), Wire("200 OK", "/after\n"));
  EXPECT_FALSE(c->closed());
}

// A serving thread makes the answers of all the requests one epoll_wait reported, then writes
// them together (EventServer::Work), so a peer asleep until its next answer is woken once.
TEST_F(EventServerTest, WritesTheAnswersOfABatchAfterTheLastOfThemIsMade) {
  std::promise<void> entered, release, allMade;
  std::shared_future<void> released = release.get_future().share();
  std::vector<std::unique_ptr<Client>> batch;  // its clients, from the test thread only
  std::mutex mu;
  std::vector<size_t> arrivedBefore;  // guarded by mu: the batch's bytes arrived, per answer made
  auto handler = [&](const Request& req, Response& res) {
    if (req.head.path == "/gate") {  // holds the one serving thread while the batch is sent
      entered.set_value();
      released.wait();
    } else if (req.head.path == "/batch") {
      size_t arrived = 0;
      for (const auto& client : batch) arrived += client->Arrived();
      std::lock_guard lock(mu);
      arrivedBefore.push_back(arrived);
      if (arrivedBefore.size() == batch.size()) allMade.set_value();
    }
    Echo(req, res);
  };
  Tuning tuning = TestTuning();
  tuning.threads = 1;
  ASSERT_TRUE(Start(tuning, handler));
  auto gate = Connect();
  for (int i = 0; i < 4; ++i) batch.push_back(Connect());
  for (auto& client : batch) {  // each connection idle, with nothing of its own left to report
    ASSERT_TRUE(client->Send(Get("/warm")));
    ASSERT_EQ(client->ReadAnswer(), Wire("200 OK", "/warm\n"));
  }
  ASSERT_TRUE(gate->Send(Get("/gate")));
  entered.get_future().wait();
  for (auto& client : batch) ASSERT_TRUE(client->Send(Get("/batch")));
  release.set_value();
  // No answer is read before the batch's last is made, so what arrived stays counted.
  ASSERT_EQ(allMade.get_future().wait_for(kWait), std::future_status::ready);
  EXPECT_EQ(gate->ReadAnswer(), Wire("200 OK", "/gate\n"));
  for (auto& client : batch) EXPECT_EQ(client->ReadAnswer(), Wire("200 OK", "/batch\n"));
  std::lock_guard lock(mu);
  EXPECT_EQ(arrivedBefore, std::vector<size_t>(batch.size(), 0))
      << "an answer of the batch was written before the batch's last answer was made";
}

// A handler may read Request::bodyReadAhead bytes past the body (the review codec parses a body
// where it lies): at least kBodyReadAhead of them, allocated (AddressSanitizer checks each read),
// for a request without a body, bodies within the first read, a request filling the buffer's
// first 16 KiB exactly or by one byte more, a body that makes it grow, and pipelined ones.
TEST_F(EventServerTest, KeepsReadAheadPastEveryBody) {
  auto handler = [](const Request& req, Response& res) {
    const volatile char* past = req.body.data() + req.body.size();
    unsigned sum = 0;
    for (size_t i = 0; i < req.bodyReadAhead; ++i) sum += static_cast<unsigned char>(past[i]);
    const bool enough = req.bodyReadAhead >= kBodyReadAhead;
    res.Set(200, std::to_string(req.body.size()) + (enough ? " ok" : " short") +
                     (sum == ~0u ? "!" : ""));  // uses the sum; 64 bytes never add up to it
  };
  ASSERT_TRUE(Start(TestTuning(), handler));
  auto post = [](size_t requestBytes) {  // a POST of exactly requestBytes, head and body
    std::string head = "POST /b HTTP/1.1\r\nHost: gpugate\r\nContent-Length: ";
    size_t body = requestBytes - head.size() - std::string("\r\n\r\n").size();
    body -= std::to_string(body).size();
    head += std::to_string(body) + "\r\n\r\n";
    return std::pair(head + std::string(body, 'x'), body);
  };
  auto c = Connect();
  ASSERT_TRUE(c->Send(Get("/a")));
  EXPECT_EQ(c->ReadAnswer(), Wire("200 OK", "0 ok"));
  for (size_t size : {100, 4'000, 16 << 10, (16 << 10) + 1, (16 << 10) - 32, 100'000}) {
    SCOPED_TRACE(size);
    auto [request, body] = post(size);
    ASSERT_EQ(request.size(), size);
    ASSERT_TRUE(c->Send(request));
    EXPECT_EQ(c->ReadAnswer(), Wire("200 OK", std::to_string(body) + " ok"));
  }
  auto [first, firstBody] = post(3'000);
  auto [second, secondBody] = post(5'000);
  ASSERT_TRUE(c->Send(first + second));
  EXPECT_EQ(c->ReadAnswer(), Wire("200 OK", std::to_string(firstBody) + " ok"));
  EXPECT_EQ(c->ReadAnswer(), Wire("200 OK", std::to_string(secondBody) + " ok"));
}

}  // namespace
}  // namespace gpugate::transport
