// gpugate's HTTPS server: non-blocking sockets and TLS driven by one epoll instance shared by a
// few threads, so an open connection costs memory and a descriptor, never a thread.
//
// Every connection is registered with EPOLLONESHOT: whichever thread epoll wakes for it owns it
// until it re-arms it, and runs everything that connection needs in turn — the TLS handshake,
// reading, the request handler, writing — without locks. A handler whose answer may block (a
// quota charge waiting on the API server or a journal fsync) says so (Response::blocking): the
// connection is handed to a worker pool that finishes the answer and re-arms it, so serving
// threads never wait and probes are answered whatever the charges wait on. A connection gives
// up its thread after a bounded turn (answers, TLS records or bytes read), answered or not, and
// goes to the back of the line, so no peer holds a thread while others wait. Accepting is one
// more one-shot event, so it never waits behind a slow peer.
//
// Deadlines are per connection and per phase (handshake, request headers, request body, the
// answer being made, the answer being taken, idle keep-alive, the linger after a refusal), in
// milliseconds. A timekeeper
// thread scans them (every tenth of the shortest deadline, at most every 100 ms) and shuts down
// the socket of a connection past its deadline; the thread that owns the connection then sees it
// closed. docs/decisions.md ("Transport") says why this replaced cpp-httplib on the
// serving path.
#pragma once

#include <openssl/ssl.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_set>
#include <vector>

#include "common/host_port.h"
#include "common/result.h"
#include "transport/byte_budget.h"
#include "transport/head_parser.h"
#include "transport/http_message.h"
#include "transport/tuning.h"
#include "transport/worker_pool.h"

namespace gpugate::transport {

// A request whose head has been read: the head's views point into the connection's buffer and
// live until the handler returns. `ssl` is the connection's, for its peer certificate.
struct Request {
  const RequestHead& head;
  std::string_view body;
  const SSL* ssl;
};

class EventServer {
 public:
  // Runs once a request's head is read, before its body is: kRefuse, with `res` filled, refuses
  // the request unread (its connection closes after the answer).
  using HeadCheck = std::function<HeadVerdict(const Request&, Response&)>;
  // Answers a whole request; may be called from several threads at once. Must not block: what
  // may goes in Response::blocking.
  using Handler = std::function<void(const Request&, Response&)>;

  // `ctx` must outlive the server; the server only makes connections from it.
  EventServer(const Tuning& tuning, SSL_CTX& ctx, HeadCheck check, Handler handler);
  ~EventServer();
  EventServer(const EventServer&) = delete;
  EventServer& operator=(const EventServer&) = delete;

  // Binds and listens; port 0 picks a free one. Returns the port.
  Result<int> Listen(const HostPort& address);
  // Serves until Stop(), then returns once every connection has closed: requests already read
  // are answered, idle connections are ended at once.
  void Run();
  // Every answer from now on carries `Connection: close`. Thread-safe.
  void Drain() { draining_ = true; }
  // Closes the listener and ends the run. Thread-safe; may come before Run().
  void Stop();

  // gpugate_http_connections_* in the Prometheus text format.
  std::string RenderMetrics() const;

 private:
  struct Conn;
  enum Phase : uint8_t {
    kHandshake,
    kIdle,
    kHeaders,
    kBody,
    kHandling,
    kWriting,
    kLinger,
    kPhases
  };

  // Who holds a connection after a step of its turn. kReleased: the step closed it (deleted),
  // re-armed it (another thread may be driving it already) or handed it to a blocking worker;
  // the caller must not touch it again.
  enum class [[nodiscard]] Holder : uint8_t { kThisThread, kReleased };

  void Work();                // one serving thread: epoll_wait and drive what it gets
  void Keep();                // the timekeeper, on Run's thread
  void AcceptAll();           // the listener's event
  void Drive(Conn& c);        // the connection's event; releases c
  Holder Handshake(Conn& c);  // kThisThread: completed
  // Serves what c's buffer and socket hold, for one turn at most; always releases c (closes
  // it, re-arms it, or hands it to the blocking workers).
  void ReadAndServe(Conn& c);
  void Yield(Conn& c);    // re-arms a connection with work left; releases c
  void Idle(Conn& c);     // between requests: waits for the next one's bytes; releases c
  Holder Flush(Conn& c);  // kThisThread: written, and the connection stays open
  void Linger(Conn& c);   // after a refusal: discard what the peer still sends, then close
  // Answers the whole request at the front of c's buffer, if there is one; kReleased: the answer
  // was handed to the blocking workers, which re-arm the connection.
  Holder ServeBuffered(Conn& c);
  enum class Next { kMoreBytes, kRefuse, kServe };
  // Frames the request at the front of c's buffer; kRefuse fills `res` with the refusal.
  Next Frame(Conn& c, Response& res);
  void FinishBlocking(Conn& c, std::function<void(Response&)> rest, Response res);
  void QueueAnswer(Conn& c, const Response& res, bool refused);
  // Grows c's request buffer (BudgetedBuffer::Grow), counting a refusal for want of budget.
  bool GrowInput(Conn& c, size_t capacity, size_t requestBytes);
  static Response OverBudget();
  // Hands c back to epoll for `events`. Another serving thread may own c the moment epoll_ctl
  // returns: the caller touches nothing of c after this.
  void Arm(Conn& c, uint32_t events);
  std::chrono::milliseconds PhaseDeadline(Phase phase) const;
  // Enters `phase` and starts its deadline; staying in the same phase keeps the deadline running
  // (a phase is bounded as a whole) unless `restart`.
  void SetPhase(Conn& c, Phase phase, bool restart = false);
  // Ends c: out of the registry, its budget given back, its TLS state and socket freed, c
  // deleted. The caller touches nothing of c after this.
  void Close(Conn& c);
  void CloseListener();

  const Tuning tuning_;
  SSL_CTX& ctx_;
  const HeadCheck check_;
  const Handler handler_;
  const HeadLimits limits_;
  const size_t threads_;
  // How often the timekeeper looks for connections past their deadline: a tenth of the shortest
  // deadline, from 1 ms to 100 ms, so a deadline is met to within a tenth of itself.
  const std::chrono::milliseconds scanInterval_;
  int epoll_ = -1;
  int wake_ = -1;  // an eventfd in the epoll set, made readable to wake every serving thread

  std::mutex listenMu_;        // the listener's descriptor: accepting, closing
  int listen_ = -1;            // guarded by listenMu_
  bool listenPaused_ = false;  // guarded by listenMu_; out of descriptors, re-armed by Keep

  mutable std::mutex mu_;            // the connection registry
  std::condition_variable changed_;  // Stop, or the last connection closed
  std::unordered_set<Conn*> conns_;  // guarded by mu_
  bool stopping_ = false;            // guarded by mu_

  std::atomic<bool> draining_{false};
  std::atomic<bool> exit_{false};  // the serving threads return
  std::atomic<uint64_t> accepted_{0};
  std::atomic<uint64_t> refused_{0};  // over maxConnections
  std::atomic<uint64_t> timedOut_[kPhases] = {};
  std::atomic<uint64_t> requests_{0};
  // HeadParser::scanned, over every request.
  std::atomic<uint64_t> headBytesScanned_{0};
  // Turns a connection gave up with work left.
  std::atomic<uint64_t> yields_{0};
  // Requests refused for want of budget.
  std::atomic<uint64_t> overBudget_{0};
  // Request bytes held, across connections.
  ByteBudget budget_;
  WorkerPool blocking_;  // last member: its workers stop before the rest goes
};

}  // namespace gpugate::transport
