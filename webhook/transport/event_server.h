// gpugate's HTTPS server: non-blocking sockets and TLS driven by one epoll instance shared by a
// few threads, so an open connection costs memory and a descriptor, never a thread.
//
// Every connection is registered once, edge-triggered (event_conn.h states the rules): the
// thread an edge wakes takes the connection unless another thread holds it, in which case the
// holder sees the edge before letting go. The holder runs everything that connection needs in
// turn — the TLS handshake, reading, the request handler, writing — without locks, and lets go
// when it must wait for the peer, with no epoll_ctl: a kept-alive request costs an epoll_wait, a
// read and a write. A handler whose answer may block (a quota charge waiting on the API server
// or a journal fsync) says so (Response::blocking): the connection goes, still held, to a worker
// pool that finishes the answer and writes it, so serving threads never wait and probes are
// answered whatever the charges wait on. A connection gives up its thread after a bounded turn
// (answers, TLS records or bytes read), answered or not, and goes, still held, to the back of a
// run queue the serving threads take turns from between epoll events, so no peer holds a thread
// while others wait. Accepting is a one-shot event, re-armed after each batch of accepts.
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
#include <deque>
#include <functional>
#include <memory>
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

// How many bytes past a whole request's body the server keeps allocated in the connection's
// buffer (their contents unspecified): room for a parser that reads ahead of its input, as
// simdjson does (up to 64 bytes), to parse the body where it lies instead of copying it.
inline constexpr size_t kBodyReadAhead = 64;

// A request whose head has been read: the head's views point into the connection's buffer and
// live until the handler returns. `ssl` is the connection's, for its peer certificate.
// `bodyReadAhead` (at least kBodyReadAhead once the body is there) bytes past the body's end
// are allocated in the same buffer and may be read, never written; what they hold is
// unspecified (the next request's start, or bytes left from an earlier one).
struct Request {
  const RequestHead& head;
  std::string_view body;
  const SSL* ssl;
  size_t bodyReadAhead = 0;
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

  // What a step of a connection's turn left it as.
  enum class [[nodiscard]] Step : uint8_t {
    kGoOn,   // this thread still holds it, and the turn goes on
    kWait,   // waiting for the peer (event_conn.h, rules 4 and 5): the holder lets go
    kYield,  // work left but the turn used up: to the back of the run queue, still held
    kDefer,  // an answer is ready to write: written with the rest of the batch, still held
    kGone,   // closed, or handed to a blocking worker: the caller touches nothing of it
  };
  // A serving thread's connections whose answers wait for the end of its batch of epoll events
  // (Work), each still held by that thread.
  using Unflushed = std::vector<Conn*>;
  // Who runs a turn: a serving thread, or a blocking worker (which must wake a serving thread
  // when it queues a connection).
  enum class Runner : uint8_t { kServingThread, kWorker };

  // Serving thread `index`: batches of epoll events and a turn from the run queue, each
  // batch's answers written at its end.
  void Work(size_t index);
  void Keep();       // the timekeeper, on Run's thread
  void AcceptAll();  // the listener's event
  // Registers c, just accepted and held by this serving thread, with epoll for good and lets
  // it go; the caller touches nothing of c afterwards.
  void Register(Conn& c);
  // An edge for c: takes c and serves it, or marks it pending.
  void Wake(Conn& c, Unflushed& unflushed);
  // Passes over c until it waits for the peer with no edge pending, yields or is gone; the
  // caller holds c and touches nothing of it afterwards. With `unflushed`, a pass that has an
  // answer to write stops there instead and c joins `unflushed`, still held.
  void Serve(Conn& c, Runner runner, Unflushed* unflushed = nullptr);
  // Writes the answer a pass left for the end of the batch and goes on with c's turn as that
  // pass would have; the caller holds c and touches nothing of it afterwards.
  void Resume(Conn& c);
  // Serve and Resume: `resumed` goes on with the pass that stopped at a deferred answer.
  void PassOver(Conn& c, Runner runner, Unflushed* unflushed, bool resumed);
  // One pass: what c's phase, buffers and socket call for. `mayDefer`: kDefer instead of
  // writing an answer.
  Step Drive(Conn& c, bool mayDefer);
  Step Handshake(Conn& c);  // kGoOn: completed
  // Serves what c's buffer and socket hold, for one turn at most; `answers` were written in
  // this pass already.
  Step ReadAndServe(Conn& c, bool mayDefer, int answers);
  Step Idle(Conn& c);    // between requests: waits for the next one's bytes
  Step Flush(Conn& c);   // kGoOn: written, and the connection stays open
  Step Linger(Conn& c);  // after a refusal: discard what the peer still sends, then close
  // Answers the whole request at the front of c's buffer, if there is one; kGone: the answer
  // was handed to the blocking workers, which hold c from then on.
  Step ServeBuffered(Conn& c);
  enum class Next { kMoreBytes, kRefuse, kServe };
  // Frames the request at the front of c's buffer; kRefuse fills `res` with the refusal.
  Next Frame(Conn& c, Response& res);
  void FinishBlocking(Conn& c, std::function<void(Response&)> rest, Response res);
  void QueueAnswer(Conn& c, const Response& res, bool refused);
  // Grows c's request buffer (BudgetedBuffer::Grow), counting a refusal for want of budget.
  bool GrowInput(Conn& c, size_t capacity, size_t requestBytes);
  static Response OverBudget();
  // Puts c, still held, at the back of the run queue; a worker also wakes a serving thread.
  void Requeue(Conn& c, Runner runner);
  Conn* PopRunnable();  // the front of the run queue, or null
  // Sets Conn::drained after each read of the socket (OpenSSL's BIO callback).
  static long OnSocketRead(BIO* bio, int oper, const char* buf, size_t len, int argi, long argl,
                           int ret, size_t* processed);
  std::chrono::milliseconds PhaseDeadline(Phase phase) const;
  // Enters `phase` and starts its deadline; staying in the same phase keeps the deadline running
  // (a phase is bounded as a whole) unless `restart`.
  void SetPhase(Conn& c, Phase phase, bool restart = false);
  // Ends c: out of the registry and epoll, its budget given back, its TLS state, buffers and
  // socket freed; the timekeeper deletes it later (ReapClosed). The caller touches nothing of c
  // after this.
  Step Close(Conn& c);
  // Deletes the connections closed before every serving thread's latest pass. Requires mu_.
  void ReapClosedLocked();
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
  int kick_ = -1;  // an eventfd in the epoll set, edge-triggered: each write wakes one thread
  // One count per serving thread, raised each time it goes back to epoll_wait (or the run
  // queue): a connection closed before every count moved is named by no serving thread.
  std::unique_ptr<std::atomic<uint64_t>[]> passes_;

  std::mutex runMu_;               // the run queue
  std::deque<Conn*> runnable_;     // guarded by runMu_; held connections with work left
  std::atomic<size_t> queued_{0};  // runnable_.size(), read without the lock

  std::mutex listenMu_;        // the listener's descriptor: accepting, closing
  int listen_ = -1;            // guarded by listenMu_
  bool listenPaused_ = false;  // guarded by listenMu_; out of descriptors, re-armed by Keep

  mutable std::mutex mu_;            // the connection registry
  std::condition_variable changed_;  // Stop, or the last connection closed
  std::unordered_set<Conn*> conns_;  // guarded by mu_
  bool stopping_ = false;            // guarded by mu_
  std::vector<Conn*> closed_;        // guarded by mu_; closed, still named by some thread
  std::vector<Conn*> reaping_;       // guarded by mu_; closed before passes_ read reapedAt_
  std::vector<uint64_t> reapedAt_;   // guarded by mu_

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
