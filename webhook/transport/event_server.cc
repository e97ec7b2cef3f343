#include "transport/event_server.h"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "transport/log.h"

namespace gpugate::transport {
namespace {

constexpr size_t kReadChunk = 16 << 10;
// A connection gives up its serving thread after this many answers, TLS records read or bytes
// read in one turn, answered or not, and goes to the back of the queue: a peer that pipelines
// requests, streams a large body or dribbles a head one byte per record cannot hold a thread
// while probes and other connections wait. 16 records of 16 KiB take a 60 KB review in one turn.
constexpr int kAnswersPerTurn = 32;
constexpr int kReadsPerTurn = 16;
constexpr size_t kBytesPerTurn = 256 << 10;
// Answer buffers above this are given back once a connection is idle, so 256 idle connections
// cost little more than their TLS state.
constexpr size_t kKeepCapacity = 32 << 10;
// A connection's first read chunk of request buffer is part of its fixed cost, like its TLS
// state, bounded by maxConnections; what a request needs beyond it (a long head, a body) is held
// from the request-byte budget. Idle connections keep at most this much, so they hold none.
constexpr size_t kFreeInputBytes = kReadChunk;

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// A tenth of the shortest deadline, from 1 ms to 100 ms: the default 10 s deadlines are scanned
// every 100 ms (ten wake-ups a second, whatever the load), a test's 200 ms ones every 20 ms.
std::chrono::milliseconds ScanInterval(const Tuning& t) {
  std::chrono::milliseconds shortest{100 * 10};
  for (auto d : {t.handshakeTimeout, t.keepAliveIdle, t.headerTimeout, t.bodyTimeout,
                 t.handlingTimeout, t.writeTimeout}) {
    if (d.count() > 0) shortest = std::min(shortest, d);
  }
  return std::clamp(shortest / 10, std::chrono::milliseconds(1), std::chrono::milliseconds(100));
}

void ReleaseIfLarge(std::string& s) {
  if (s.empty() && s.capacity() > kKeepCapacity) std::string().swap(s);
}

// SSL_get_error tells what the last TLS call did only if the thread's OpenSSL error queue was
// empty before it: anything left there (by a handler, or the cluster layer's API client on this
// thread) reads as SSL_ERROR_SSL and would close a healthy connection. So every TLS call on a
// connection starts with an empty queue.
int TlsHandshake(SSL* ssl) {
  ERR_clear_error();
  return SSL_do_handshake(ssl);
}

int TlsRead(SSL* ssl, char* to, size_t room) {
  ERR_clear_error();
  return SSL_read(ssl, to, static_cast<int>(room));
}

int TlsWrite(SSL* ssl, std::string_view bytes) {
  ERR_clear_error();
  return SSL_write(ssl, bytes.data(), static_cast<int>(bytes.size()));
}

// close_notify, best effort: the socket closes either way.
void TlsShutdown(SSL* ssl) {
  ERR_clear_error();
  SSL_shutdown(ssl);
}

}  // namespace

struct EventServer::Conn {
  Conn(int socket, const HeadLimits& limits) : fd(socket), parser(limits) {}
  const int fd;
  SSL* ssl = nullptr;
  // Read by the timekeeper under mu_, written by the owning thread.
  std::atomic<int64_t> deadline{0};  // steady-clock ns; 0: none
  std::atomic<uint8_t> phase{kHandshake};
  // Handing the connection from one thread to the next goes through epoll, which orders the
  // two but is invisible to ThreadSanitizer. The arming thread holds this across epoll_ctl and
  // the woken thread takes it once before touching the connection: the same order, in terms
  // the sanitizer checks, for two uncontended lock operations per turn.
  std::mutex handoff;
  bool shut = false;  // guarded by mu_: the timekeeper shut the socket down
  // Owned by whichever thread epoll handed the connection to.
  std::string in;      // bytes read and not yet consumed by a request
  size_t charged = 0;  // of the request-byte budget: in's capacity beyond kFreeInputBytes
  std::string out;     // an answer not yet fully written
  size_t outOff = 0;
  size_t served = 0;
  HeadParser parser;  // the head of the request at the front of `in`
  // The request being answered: what its answer's framing needs once the head's views are gone.
  bool keepAlive = false;
  bool headOnly = false;          // a HEAD request
  size_t consumed = 0;            // its head and body bytes at the front of `in`
  bool closeAfterWrite = false;   // close once `out` is written
  bool lingerAfterWrite = false;  // with closeAfterWrite: the request was refused unread
  size_t discarded = 0;           // bytes thrown away while lingering
};

EventServer::EventServer(const Tuning& tuning, SSL_CTX& ctx, HeadCheck check, Handler handler)
    : tuning_(tuning),
      ctx_(ctx),
      check_(std::move(check)),
      handler_(std::move(handler)),
      limits_{.maxBodyBytes = tuning.maxBodyBytes},
      threads_(tuning.threads == 0 ? AvailableCpus() : tuning.threads),
      scanInterval_(ScanInterval(tuning)),
      budget_(tuning.bufferedRequestBytes),
      blocking_(tuning.blockingWorkers) {}

EventServer::~EventServer() {
  CloseListener();
  for (Conn* c : conns_) {  // Run() never ran, or returned: nothing else touches them
    SSL_free(c->ssl);
    ::close(c->fd);
    delete c;
  }
  if (wake_ >= 0) ::close(wake_);
  if (epoll_ >= 0) ::close(epoll_);
}

Result<int> EventServer::Listen(const HostPort& address) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string port = std::to_string(address.port);
  const std::string where = address.host + ":" + port;
  if (int rc = getaddrinfo(address.host.c_str(), port.c_str(), &hints, &found); rc != 0) {
    return Fail("cannot listen on " + where + ": " + gai_strerror(rc));
  }
  int fd = -1;
  int err = 0;
  for (addrinfo* a = found; a && fd < 0; a = a->ai_next) {
    fd = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      err = errno;
      continue;
    }
    int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    // Accepted sockets inherit it: no 40 ms Nagle/delayed-ACK stall on an answer.
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (::bind(fd, a->ai_addr, a->ai_addrlen) != 0 || ::listen(fd, tuning_.listenBacklog) != 0) {
      err = errno;
      ::close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(found);
  if (fd < 0) return Fail("cannot listen on " + where + ": " + std::strerror(err));

  sockaddr_storage bound{};
  socklen_t len = sizeof bound;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &len);
  int boundPort = bound.ss_family == AF_INET6
                      ? ntohs(reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port)
                      : ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port);

  epoll_ = ::epoll_create1(EPOLL_CLOEXEC);
  wake_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  epoll_event ev{};
  ev.events = EPOLLIN | EPOLLONESHOT;
  ev.data.ptr = nullptr;  // the listener; connections carry their Conn
  // Level-triggered and never read: once written, every epoll_wait returns it.
  epoll_event wake{};
  wake.events = EPOLLIN;
  wake.data.ptr = &wake_;
  if (epoll_ < 0 || wake_ < 0 || ::epoll_ctl(epoll_, EPOLL_CTL_ADD, fd, &ev) != 0 ||
      ::epoll_ctl(epoll_, EPOLL_CTL_ADD, wake_, &wake) != 0) {
    ::close(fd);
    return Fail(std::string("cannot set up epoll: ") + std::strerror(errno));
  }
  std::lock_guard lock(listenMu_);
  listen_ = fd;
  return boundPort;
}

void EventServer::Run() {
  if (epoll_ < 0) return;  // Listen() failed or never ran
  std::vector<std::thread> threads;
  for (size_t i = 0; i < threads_; ++i) threads.emplace_back([this] { Work(); });
  Keep();  // returns once every connection has closed, so no blocking answer is under way
  exit_ = true;
  // Wakes every thread waiting in epoll_wait at once. Cannot fail on an eventfd written once;
  // if it did, the threads would still see exit_ within their 200 ms wait.
  const uint64_t one = 1;
  [[maybe_unused]] ssize_t written = ::write(wake_, &one, sizeof one);
  for (auto& t : threads) t.join();
  blocking_.Shutdown();
}

void EventServer::Stop() {
  draining_ = true;
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  changed_.notify_all();
}

void EventServer::Work() {
  while (!exit_) {
    epoll_event ev;
    // One event per wake-up: a thread blocked in a handler holds back no other connection.
    int n = ::epoll_wait(epoll_, &ev, 1, 200);
    if (n != 1 || ev.data.ptr == &wake_) continue;  // timeout, EINTR or woken: look at exit_
    if (ev.data.ptr == nullptr) {
      AcceptAll();
    } else {
      Drive(*static_cast<Conn*>(ev.data.ptr));
    }
  }
}

void EventServer::Keep() {
  bool listenerClosed = false;
  std::unique_lock lock(mu_);
  for (;;) {
    changed_.wait_for(lock, scanInterval_);
    const int64_t now = NowNs();
    for (Conn* c : conns_) {
      int64_t due = c->deadline.load(std::memory_order_relaxed);
      if (c->shut || due == 0 || now < due) continue;
      c->shut = true;
      ++timedOut_[c->phase.load(std::memory_order_relaxed)];
      ::shutdown(c->fd, SHUT_RDWR);  // its owner's next read or write fails, and it closes
    }
    if (stopping_) {
      if (!listenerClosed) {
        lock.unlock();  // lock order: listenMu_ is never taken under mu_
        CloseListener();
        lock.lock();
        listenerClosed = true;
        LogLine("closing connections").Int("open", static_cast<int64_t>(conns_.size())).Info();
      }
      // Idle connections end now; one whose request has arrived still reads it (Linux returns
      // queued bytes before end-of-file) and closes after its answer, as stopping_ says.
      for (Conn* c : conns_) {
        uint8_t phase = c->phase.load(std::memory_order_relaxed);
        if (c->shut || (phase != kIdle && phase != kHandshake && phase != kLinger)) continue;
        c->shut = true;
        ::shutdown(c->fd, phase == kIdle ? SHUT_RD : SHUT_RDWR);
      }
      if (conns_.empty()) return;
      continue;
    }
    lock.unlock();
    {
      std::lock_guard listenLock(listenMu_);
      if (listenPaused_ && listen_ >= 0) {  // out of descriptors earlier: try again
        listenPaused_ = false;
        epoll_event ev{};
        ev.events = EPOLLIN | EPOLLONESHOT;
        ::epoll_ctl(epoll_, EPOLL_CTL_MOD, listen_, &ev);
      }
    }
    lock.lock();
  }
}

void EventServer::AcceptAll() {
  std::lock_guard listenLock(listenMu_);
  if (listen_ < 0) return;
  for (int i = 0; i < 64; ++i) {
    int fd = ::accept4(listen_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED || errno == EPROTO) continue;
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
        // The pending connection stays in the backlog; the timekeeper re-arms the listener.
        LogLine("cannot accept").Str("error", std::strerror(errno)).Warn();
        listenPaused_ = true;
        return;
      }
      break;  // EAGAIN: the backlog is empty
    }
    ++accepted_;
    auto* c = new Conn(fd, limits_);
    c->ssl = SSL_new(&ctx_);
    bool ok = c->ssl && SSL_set_fd(c->ssl, fd) == 1;
    if (ok) {
      SSL_set_accept_state(c->ssl);
      SSL_set_mode(c->ssl, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
      SetPhase(*c, kHandshake);
      std::lock_guard lock(mu_);
      if (stopping_ || conns_.size() >= tuning_.maxConnections) {
        ok = false;
        if (!stopping_) ++refused_;
      } else {
        conns_.insert(c);
      }
    }
    if (!ok) {
      SSL_free(c->ssl);
      ::close(fd);
      delete c;
      continue;
    }
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLONESHOT;
    ev.data.ptr = c;
    std::lock_guard handoff(c->handoff);
    ::epoll_ctl(epoll_, EPOLL_CTL_ADD, fd, &ev);  // may be driven by another thread at once
  }
  epoll_event ev{};
  ev.events = EPOLLIN | EPOLLONESHOT;
  ::epoll_ctl(epoll_, EPOLL_CTL_MOD, listen_, &ev);
}

void EventServer::CloseListener() {
  std::lock_guard listenLock(listenMu_);
  if (listen_ < 0) return;
  if (epoll_ >= 0) ::epoll_ctl(epoll_, EPOLL_CTL_DEL, listen_, nullptr);
  ::close(listen_);
  listen_ = -1;
}

void EventServer::Arm(Conn& c, uint32_t events) {
  epoll_event ev{};
  ev.events = events | EPOLLONESHOT;
  ev.data.ptr = &c;
  std::lock_guard handoff(c.handoff);
  ::epoll_ctl(epoll_, EPOLL_CTL_MOD, c.fd, &ev);
}

// Every phase has a deadline (zero only where a test or the config turned one off), so no wait
// on a peer or a handler is unbounded.
std::chrono::milliseconds EventServer::PhaseDeadline(Phase phase) const {
  switch (phase) {
    case kHandshake:
      return tuning_.handshakeTimeout;
    case kIdle:
      return tuning_.keepAliveIdle;
    case kHeaders:
      return tuning_.headerTimeout;
    case kBody:
    case kLinger:
      return tuning_.bodyTimeout;
    case kHandling:
      return tuning_.handlingTimeout;
    case kWriting:
    case kPhases:
      break;
  }
  return tuning_.writeTimeout;
}

void EventServer::SetPhase(Conn& c, Phase phase, bool restart) {
  if (!restart && c.phase.load(std::memory_order_relaxed) == phase && c.deadline != 0) return;
  const auto limit = std::chrono::nanoseconds(PhaseDeadline(phase));
  c.phase.store(phase, std::memory_order_relaxed);
  c.deadline.store(limit.count() == 0 ? 0 : NowNs() + limit.count(), std::memory_order_relaxed);
}

void EventServer::Close(Conn& c) {
  {
    std::lock_guard lock(mu_);
    conns_.erase(&c);
    if (stopping_ && conns_.empty()) changed_.notify_all();
  }
  budget_.Give(c.charged);
  // Only now is the descriptor closed: the timekeeper never shuts down one reused since.
  ERR_clear_error();
  SSL_free(c.ssl);
  ::close(c.fd);
  delete &c;
}

void EventServer::Drive(Conn& c) {
  { std::lock_guard handoff(c.handoff); }  // the thread that armed it is done with it
  const uint8_t phase = c.phase.load(std::memory_order_relaxed);
  if (phase == kLinger) return Linger(c);
  if (phase == kHandshake && !Handshake(c)) return;
  if (!c.out.empty() && !Flush(c)) return;
  ReadAndServe(c);
}

bool EventServer::Handshake(Conn& c) {
  int rc = TlsHandshake(c.ssl);
  if (rc == 1) {
    SetPhase(c, kIdle);
    return true;
  }
  switch (SSL_get_error(c.ssl, rc)) {
    case SSL_ERROR_WANT_READ:
      Arm(c, EPOLLIN);
      break;
    case SSL_ERROR_WANT_WRITE:
      Arm(c, EPOLLOUT);
      break;
    default:
      Close(c);
      break;  // not TLS, refused, or gone: nothing to answer
  }
  return false;
}

bool EventServer::Flush(Conn& c) {
  while (c.outOff < c.out.size()) {
    int n = TlsWrite(c.ssl, std::string_view(c.out).substr(c.outOff));
    if (n > 0) {
      c.outOff += static_cast<size_t>(n);
      continue;
    }
    switch (SSL_get_error(c.ssl, n)) {
      case SSL_ERROR_WANT_WRITE:
        SetPhase(c, kWriting);
        Arm(c, EPOLLOUT);
        break;
      case SSL_ERROR_WANT_READ:  // the answer waits on a TLS record from the peer
        SetPhase(c, kWriting);
        Arm(c, EPOLLIN);
        break;
      default:
        Close(c);
        break;  // the peer left
    }
    return false;
  }
  c.out.clear();
  c.outOff = 0;
  ReleaseIfLarge(c.out);
  if (c.closeAfterWrite) {
    TlsShutdown(c.ssl);
    if (c.lingerAfterWrite) {
      Linger(c);
    } else {
      Close(c);
    }
    return false;
  }
  return true;
}

// A refused request's body was never read, and the peer may still be sending it: closing now
// would make the kernel answer those bytes with a reset, which can destroy the refusal before
// the peer reads it. So stop writing, read and discard (raw bytes: TLS is over) until the peer
// closes, up to twice the body cap or the body deadline, then close.
void EventServer::Linger(Conn& c) {
  if (c.phase.load(std::memory_order_relaxed) != kLinger) {
    ::shutdown(c.fd, SHUT_WR);
    c.in.clear();
    ShrinkInput(c);
    SetPhase(c, kLinger);
  }
  char sink[16 << 10];
  for (;;) {
    ssize_t n = ::read(c.fd, sink, sizeof sink);
    if (n > 0) {
      c.discarded += static_cast<size_t>(n);
      if (c.discarded > 2 * tuning_.maxBodyBytes) break;
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      Arm(c, EPOLLIN);
      return;
    }
    if (n < 0 && errno == EINTR) continue;
    break;  // the peer closed, or the socket failed
  }
  Close(c);
}

bool EventServer::ReadAndServe(Conn& c) {
  int answers = 0;
  int reads = 0;
  size_t bytes = 0;
  for (;;) {
    if (!ServeBuffered(c)) return false;
    if (!c.out.empty()) {
      if (!Flush(c)) return false;
      if (++answers >= kAnswersPerTurn) return Yield(c);
      continue;  // another whole request may be buffered
    }
    if (reads >= kReadsPerTurn || bytes >= kBytesPerTurn) return Yield(c);
    // Need more bytes. A body has its room already (Frame); a head grows a chunk at a time.
    if (c.in.capacity() - c.in.size() < kReadChunk &&
        c.parser.state() == HeadParser::State::kIncomplete &&
        !GrowInput(c, c.in.size() + kReadChunk, 0)) {
      c.headOnly = false;
      QueueAnswer(c, OverBudget(), /*refused=*/true);
      continue;  // to write the refusal
    }
    size_t room = c.in.capacity() - c.in.size();
    int n = 0;
    c.in.resize_and_overwrite(c.in.size() + room, [&](char* p, size_t size) {
      n = TlsRead(c.ssl, p + size - room, room);
      return size - room + static_cast<size_t>(n > 0 ? n : 0);
    });
    if (n > 0) {
      ++reads;
      bytes += static_cast<size_t>(n);
      continue;
    }
    switch (SSL_get_error(c.ssl, n)) {
      case SSL_ERROR_WANT_READ:
        if (c.in.empty()) {
          SetPhase(c, kIdle);
          ShrinkInput(c);
        }
        Arm(c, EPOLLIN);
        break;
      case SSL_ERROR_WANT_WRITE:
        Arm(c, EPOLLOUT);
        break;
      case SSL_ERROR_ZERO_RETURN:  // close_notify
        TlsShutdown(c.ssl);
        Close(c);
        break;
      default:
        Close(c);
        break;  // reset, end of file, or a TLS error
    }
    return false;
  }
}

// Gives the thread to the connections waiting behind this one. Either event fires at once if
// there is work left (bytes in the socket, or a writable socket for requests already buffered,
// which the next turn serves before reading), and puts the connection at the back of epoll's
// ready list.
bool EventServer::Yield(Conn& c) {
  ++yields_;
  Arm(c, EPOLLIN | EPOLLOUT);
  return false;
}

bool EventServer::ServeBuffered(Conn& c) {
  if (c.in.empty()) return true;
  Response res;
  switch (Frame(c, res)) {
    case Next::kMoreBytes:
      return true;
    case Next::kRefuse:
      QueueAnswer(c, res, /*refused=*/true);
      return true;
    case Next::kServe:
      break;
  }
  SetPhase(c, kHandling, /*restart=*/true);       // each request's answer has the whole deadline
  const RequestHead& head = c.parser.Head(c.in);  // its views into the buffer as it is now
  Request req{head, std::string_view(c.in).substr(head.headBytes, head.contentLength), c.ssl};
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
    return false;
  }
  ++requests_;
  QueueAnswer(c, res, /*refused=*/false);
  return true;
}

// Feeds the head parser what arrived since the last call (it never looks at a byte twice), then
// waits for the whole body. The head check, and an interim 100 Continue, come once per request,
// when its head is complete.
EventServer::Next EventServer::Frame(Conn& c, Response& res) {
  if (c.parser.state() == HeadParser::State::kIncomplete) {
    const uint64_t before = c.parser.scanned();
    const HeadParser::State state = c.parser.Feed(c.in);
    headBytesScanned_.fetch_add(c.parser.scanned() - before, std::memory_order_relaxed);
    if (state == HeadParser::State::kIncomplete) {
      SetPhase(c, kHeaders);  // the headers deadline runs from the request's first bytes
      return Next::kMoreBytes;
    }
    if (state == HeadParser::State::kRefused) {
      res.Set(c.parser.status(), c.parser.reason());
      c.headOnly = false;
      return Next::kRefuse;
    }
    const RequestHead& head = c.parser.Head(c.in);
    c.keepAlive = head.keepAlive;
    c.headOnly = head.method == "HEAD";
    c.consumed = head.headBytes + head.contentLength;
    const bool expectContinue = head.expectContinue;
    if (check_(Request{head, {}, c.ssl}, res)) return Next::kRefuse;
    // The whole request's room, from the budget, before the body is read or asked for.
    if (!GrowInput(c, c.consumed, c.consumed)) {
      res = OverBudget();
      return Next::kRefuse;
    }
    if (expectContinue && c.in.size() < c.consumed) c.out += "HTTP/1.1 100 Continue\r\n\r\n";
  }
  if (c.in.size() < c.consumed) {
    SetPhase(c, kBody);  // from the end of the headers, for the whole body
    return Next::kMoreBytes;
  }
  return Next::kServe;
}

// On a blocking worker, which owns the connection meanwhile: nothing else touches it until it is
// re-armed, so the request's bytes (which `rest` may view) stay put.
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
    Arm(c, EPOLLOUT);  // a serving thread writes it; `c` is not ours after this
  });
}

// Frames `res` into c's output and consumes its request from c's input.
void EventServer::QueueAnswer(Conn& c, const Response& res, bool refused) {
  // Stop() sets draining_ too: after it, every answer ends its connection.
  const bool close = refused || res.close || !c.keepAlive || draining_ ||
                     ++c.served >= tuning_.keepAliveMaxRequests;
  WriteResponse(res, close, c.headOnly, c.out);
  c.closeAfterWrite = close;
  c.lingerAfterWrite = refused;
  c.parser.Reset();
  if (close) {
    c.in.clear();  // what follows a refused head is not a request we can frame
  } else {
    c.in.erase(0, c.consumed);
  }
  ShrinkInput(c);
}

// Grows c's request buffer to `capacity` bytes, for a request of `requestBytes` in all (0 while
// its size is unknown), taking what it holds beyond kFreeInputBytes from the budget; false, and
// nothing changed, when the budget has no room for it.
bool EventServer::GrowInput(Conn& c, size_t capacity, size_t requestBytes) {
  if (c.in.capacity() >= capacity) return true;
  const size_t charge = capacity > kFreeInputBytes ? capacity - kFreeInputBytes : 0;
  if (charge > c.charged && !budget_.TryTake(charge - c.charged, requestBytes)) {
    ++overBudget_;
    return false;
  }
  // A fresh string reserves exactly what is asked for (growing one in place may double it).
  std::string grown;
  grown.reserve(capacity);
  grown.append(c.in);
  c.in.swap(grown);
  c.charged = std::max(charge, c.charged);
  Recharge(c);
  return true;
}

// After a request is consumed, or the connection idles: a buffer larger than its free part is
// given back when what it still holds (a pipelined request's start) fits in a free one.
void EventServer::ShrinkInput(Conn& c) {
  if (c.in.capacity() <= kFreeInputBytes || c.in.size() > kFreeInputBytes) return;
  std::string small;
  if (!c.in.empty()) {
    small.reserve(kFreeInputBytes);
    small.append(c.in);
  }
  c.in.swap(small);
  Recharge(c);
}

// Settles c's share of the budget with its buffer's capacity now.
void EventServer::Recharge(Conn& c) {
  const size_t capacity = c.in.capacity();
  const size_t charge = capacity > kFreeInputBytes ? capacity - kFreeInputBytes : 0;
  if (charge > c.charged) budget_.Take(charge - c.charged);
  if (charge < c.charged) budget_.Give(c.charged - charge);
  c.charged = charge;
}

// The refusal of a request the budget has no room for.
Response EventServer::OverBudget() {
  Response res;
  res.Set(503, "the server holds as many request bytes as it may; try again\n");
  res.headers.emplace_back("Retry-After", "1");
  return res;
}

}  // namespace gpugate::transport
