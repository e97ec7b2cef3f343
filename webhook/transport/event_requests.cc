// A request at the front of a connection's buffer: framed (the head parser, the head check, the
// budget for its bytes), handled, and its answer queued; answers that may block finish on the
// blocking workers.
#include <algorithm>
#include <exception>
#include <functional>
#include <string>
#include <string_view>
#include <utility>

#include "transport/event_conn.h"
#include "transport/event_server.h"
#include "transport/log.h"

namespace gpugate::transport {

EventServer::Step EventServer::ServeBuffered(Conn& c) {
  if (c.in.empty()) return Step::kGoOn;
  Response res;
  switch (Frame(c, res)) {
    case Next::kMoreBytes:
      return Step::kGoOn;
    case Next::kRefuse:
      QueueAnswer(c, res, /*refused=*/true);
      return Step::kGoOn;
    case Next::kServe:
      break;
  }
  SetPhase(c, kHandling, /*restart=*/true);  // each request's answer has the whole deadline
  const RequestHead& head = c.parser.Head(c.in.view());  // its views into the buffer as it is now
  const std::string_view body = c.in.view().substr(head.headBytes, head.contentLength);
  Request req{head, body, c.ssl.get(),
              c.in.capacity() - static_cast<size_t>(body.data() + body.size() - c.in.view().data())};
  try {
    handler_(req, res);
  } catch (const std::exception& e) {
    res = Response{};
    res.Set(500, "internal error\n");
    LogLine("handler failed").Str("path", head.path).Str("error", e.what()).Error();
  }
  if (res.blocking) {
    std::function<void(Response&)> rest = std::move(res.blocking);
    res.blocking = nullptr;
    FinishBlocking(c, std::move(rest), std::move(res));
    return Step::kGone;
  }
  ++requests_;
  QueueAnswer(c, res, /*refused=*/false);
  return Step::kGoOn;
}

// Feeds the head parser what arrived since the last call (it never looks at a byte twice), then
// waits for the whole body. The head check, and an interim 100 Continue, come once per request,
// when its head is complete.
EventServer::Next EventServer::Frame(Conn& c, Response& res) {
  if (c.parser.state() == HeadParser::State::kIncomplete) {
    const uint64_t before = c.parser.scanned();
    const HeadParser::State state = c.parser.Feed(c.in.view());
    headBytesScanned_.fetch_add(c.parser.scanned() - before, std::memory_order_relaxed);
    if (state == HeadParser::State::kIncomplete) {
      SetPhase(c, kHeaders);  // the headers deadline runs from the request's first bytes
      return Next::kMoreBytes;
    }
    if (state == HeadParser::State::kRefused) {
      res.Set(c.parser.status(), c.parser.reason());
      return Next::kRefuse;
    }
    const RequestHead& head = c.parser.Head(c.in.view());
    c.exchange = {.keepAlive = head.keepAlive,
                  .headOnly = head.method == "HEAD",
                  .consumed = head.headBytes + head.contentLength};
    const size_t consumed = c.exchange.consumed;
    const bool expectContinue = head.expectContinue;
    if (check_(Request{head, {}, c.ssl.get()}, res) == HeadVerdict::kRefuse) return Next::kRefuse;
    // The whole request's room, from the budget, before the body is read or asked for, and
    // the read-ahead past it (Request::bodyReadAhead).
    if (!GrowInput(c, consumed + kBodyReadAhead, consumed)) {
      res = OverBudget();
      return Next::kRefuse;
    }
    if (expectContinue && c.in.size() < consumed) c.out += "HTTP/1.1 100 Continue\r\n\r\n";
  }
  if (c.in.size() < c.exchange.consumed) {
    SetPhase(c, kBody);  // from the end of the headers, for the whole body
    return Next::kMoreBytes;
  }
  return Next::kServe;
}

// On a blocking worker, which holds the connection meanwhile (kOwned: an edge only marks it
// pending), so the request's bytes (which `rest` may view) stay put. The worker writes the answer
// and goes on with the connection's turn, as a serving thread would.
void EventServer::FinishBlocking(Conn& c, std::function<void(Response&)> rest, Response res) {
  blocking_.Enqueue([this, &c, rest = std::move(rest), res = std::move(res)]() mutable {
    try {
      rest(res);
    } catch (const std::exception& e) {
      res = Response{};
      res.Set(500, "internal error\n");
      LogLine("handler failed").Str("error", e.what()).Error();
    }
    ++requests_;
    QueueAnswer(c, res, /*refused=*/false);
    Serve(c, Runner::kWorker);  // `c` is not ours after this
  });
}

// Frames `res` into c's output and consumes its request from c's input; the one place the
// request's exchange state is reset.
void EventServer::QueueAnswer(Conn& c, const Response& res, bool refused) {
  const Conn::Exchange done = std::exchange(c.exchange, {});
  // Stop() sets draining_ too: after it, every answer ends its connection.
  const bool close = refused || res.close || !done.keepAlive || draining_ ||
                     ++c.served >= tuning_.keepAliveMaxRequests;
  WriteResponse(res, close, done.headOnly, c.out);
  c.afterWrite = refused ? Conn::AfterWrite::kLinger
                 : close ? Conn::AfterWrite::kClose
                         : Conn::AfterWrite::kKeepOpen;
  c.parser.Reset();
  if (close) {
    c.in.Clear();  // what follows a refused head is not a request we can frame
  } else {
    c.in.Consume(done.consumed);
  }
  c.in.Shrink();
}

bool EventServer::GrowInput(Conn& c, size_t capacity, size_t requestBytes) {
  if (c.in.Grow(capacity, requestBytes)) return true;
  ++overBudget_;
  return false;
}

// The refusal of a request the budget has no room for.
Response EventServer::OverBudget() {
  Response res;
  res.Set(503, "the server holds as many request bytes as it may; try again\n");
  res.headers.emplace_back("Retry-After", "1");
  return res;
}

}  // namespace gpugate::transport
