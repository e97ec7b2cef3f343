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
#include <memory>

#include "common/deadline.h"
#include "transport/event_conn.h"
#include "transport/log.h"

namespace gpugate::transport {
namespace {

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

}  // namespace

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
  // Run() never ran, or returned: nothing else touches them.
  for (Conn* c : conns_) delete c;
  for (Conn* c : closed_) delete c;
  for (Conn* c : reaping_) delete c;
  if (kick_ >= 0) ::close(kick_);
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
  kick_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  epoll_event ev{};
  ev.events = EPOLLIN | EPOLLONESHOT;
  ev.data.ptr = nullptr;  // the listener; connections carry their Conn
  // Level-triggered and never read: once written, every epoll_wait returns it.
  epoll_event wake{};
  wake.events = EPOLLIN;
  wake.data.ptr = &wake_;
  // Edge-triggered and never read: each write is one more edge, reported to one thread.
  epoll_event kick{};
  kick.events = EPOLLIN | EPOLLET;
  kick.data.ptr = &kick_;
  if (epoll_ < 0 || wake_ < 0 || kick_ < 0 || ::epoll_ctl(epoll_, EPOLL_CTL_ADD, fd, &ev) != 0 ||
      ::epoll_ctl(epoll_, EPOLL_CTL_ADD, wake_, &wake) != 0 ||
      ::epoll_ctl(epoll_, EPOLL_CTL_ADD, kick_, &kick) != 0) {
    ::close(fd);
    return Fail(std::string("cannot set up epoll: ") + std::strerror(errno));
  }
  std::lock_guard lock(listenMu_);
  listen_ = fd;
  return boundPort;
}

void EventServer::Run() {
  if (epoll_ < 0) return;  // Listen() failed or never ran
  passes_ = std::make_unique<std::atomic<uint64_t>[]>(threads_);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < threads_; ++i) threads.emplace_back([this, i] { Work(i); });
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

void EventServer::Work(size_t index) {
  std::atomic<uint64_t>& passes = passes_[index];
  epoll_event events[kEventsPerWait];
  Unflushed unflushed;
  unflushed.reserve(kEventsPerWait + 1);
  while (!exit_) {
    // Whatever this thread took from epoll before is done with (event_conn.h, rule 6).
    passes.fetch_add(1, std::memory_order_release);
    // A connection that yielded its turn waits behind, at most, one batch of epoll events.
    Conn* queued = PopRunnable();
    const int n = ::epoll_wait(epoll_, events, kEventsPerWait, queued ? 0 : 200);
    for (int i = 0; i < n; ++i) {  // n < 0: EINTR; n == 0: a timeout
      void* named = events[i].data.ptr;
      if (named == nullptr) {
        AcceptAll();
      } else if (named != &wake_ && named != &kick_) {  // woken: look at exit_ and the queue
        Wake(*static_cast<Conn*>(named), unflushed);
      }
    }
    if (queued) Serve(*queued, Runner::kServingThread, &unflushed);
    // The batch's answers go out together, after the last of them is made: a peer that sleeps
    // until its next answer arrives is woken once for them all, not once for each.
    for (Conn* c : unflushed) Resume(*c);
    unflushed.clear();
  }
}

void EventServer::Keep() {
  bool listenerClosed = false;
  std::unique_lock lock(mu_);
  for (;;) {
    changed_.wait_for(lock, scanInterval_);
    ReapClosedLocked();
    const Deadline now = SteadyClock::now();
    for (Conn* c : conns_) {
      if (c->shut || now < c->deadline.load(std::memory_order_relaxed)) continue;
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
    // Owns the socket from here: leaving early closes it.
    auto owned = std::make_unique<Conn>(fd, tls::SslPtr(SSL_new(&ctx_)), limits_, budget_);
    if (!owned->ssl || SSL_set_fd(owned->ssl.get(), fd) != 1) continue;
    SSL_set_accept_state(owned->ssl.get());
    SSL_set_mode(owned->ssl.get(),
                 SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    // OpenSSL reads what the socket holds, not a record's 5-byte header and then its body: one
    // read(2) per request that fits a record, instead of two. What it reads ahead of the record
    // it returns stays in its buffer, where SSL_has_pending sees it (ReadAndServe).
    SSL_set_read_ahead(owned->ssl.get(), 1);
    SetPhase(*owned, kHandshake);
    {
      std::lock_guard lock(mu_);
      if (stopping_ || conns_.size() >= tuning_.maxConnections) {
        if (!stopping_) ++refused_;
        continue;
      }
      conns_.insert(owned.get());
    }
    Register(*owned.release());  // the registry's now; Close ends it
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
  if (!restart && c.phase.load(std::memory_order_relaxed) == phase &&
      c.deadline.load(std::memory_order_relaxed) != kNoDeadline) {
    return;
  }
  const std::chrono::milliseconds limit = PhaseDeadline(phase);
  c.phase.store(phase, std::memory_order_relaxed);
  c.deadline.store(limit.count() == 0 ? kNoDeadline : SteadyClock::now() + limit,
                   std::memory_order_relaxed);
}

}  // namespace gpugate::transport
