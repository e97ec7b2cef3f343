// Who holds a connection (event_conn.h, rules 1 to 6): taking it on an edge, passing over it
// until it waits with no edge pending, the run queue of yielded turns, and closing it without a
// serving thread still naming it.
#include <openssl/bio.h>
#include <openssl/err.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <cstdint>
#include <mutex>
#include <string>

#include "transport/event_conn.h"
#include "transport/event_server.h"

namespace gpugate::transport {

void EventServer::Register(Conn& c) {
  BIO* bio = SSL_get_rbio(c.ssl.get());
  BIO_set_callback_arg(bio, reinterpret_cast<char*>(&c.drained));
  BIO_set_callback_ex(bio, &EventServer::OnSocketRead);
  // Once, for the connection's life: whoever an edge wakes takes it.
  epoll_event ev{};
  ev.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;
  ev.data.ptr = &c;
  ::epoll_ctl(epoll_, EPOLL_CTL_ADD, c.fd, &ev);
  // Registering reports the writable socket at once: another thread may take c from here. If
  // it came while this thread held c, c goes to the run queue, still held, for its handshake.
  uint8_t held = kOwned;
  if (!c.sched.compare_exchange_strong(held, 0, std::memory_order_release,
                                       std::memory_order_relaxed)) {
    Requeue(c, Runner::kServingThread);
  }
}

void EventServer::Wake(Conn& c, Unflushed& unflushed) {
  // Rule 2: held elsewhere, the holder sees kPending before it lets go.
  if (c.sched.fetch_or(kOwned | kPending, std::memory_order_acq_rel) & kOwned) return;
  Serve(c, Runner::kServingThread, &unflushed);
}

void EventServer::Serve(Conn& c, Runner runner, Unflushed* unflushed) {
  PassOver(c, runner, unflushed, /*resumed=*/false);
}

void EventServer::Resume(Conn& c) { PassOver(c, Runner::kServingThread, nullptr, true); }

void EventServer::PassOver(Conn& c, Runner runner, Unflushed* unflushed, bool resumed) {
  for (;;) {
    const uint8_t was = c.sched.fetch_and(static_cast<uint8_t>(~kPending),
                                          std::memory_order_acquire);  // rule 3
    // Rule 5 across a deferred answer: the pass that stopped for it goes on, and `drained`
    // still describes its last read, unless an edge came meanwhile.
    if (!resumed || (was & kPending) != 0) c.drained = false;
    resumed = false;
    switch (Drive(c, unflushed != nullptr)) {
      case Step::kGoOn:  // Drive ends every pass with one of the others
      case Step::kWait: {
        uint8_t held = kOwned;  // rule 4: let go unless an edge came during the pass
        if (c.sched.compare_exchange_strong(held, 0, std::memory_order_release,
                                            std::memory_order_relaxed)) {
          return;
        }
        continue;
      }
      case Step::kYield:
        ++yields_;
        return Requeue(c, runner);
      case Step::kDefer:
        unflushed->push_back(&c);
        return;
      case Step::kGone:
        return;
    }
  }
}

void EventServer::Requeue(Conn& c, Runner runner) {
  {
    std::lock_guard lock(runMu_);
    runnable_.push_back(&c);
    queued_.store(runnable_.size(), std::memory_order_relaxed);
  }
  // A serving thread looks at the run queue on its next pass; a worker's queued connection
  // would wait for the next event, or the 200 ms timeout, without a wake-up. Cannot fail on an
  // eventfd short of 2^64 - 1 writes.
  if (runner == Runner::kWorker) {
    const uint64_t one = 1;
    [[maybe_unused]] ssize_t written = ::write(kick_, &one, sizeof one);
  }
}

EventServer::Conn* EventServer::PopRunnable() {
  if (queued_.load(std::memory_order_relaxed) == 0) return nullptr;
  std::lock_guard lock(runMu_);
  if (runnable_.empty()) return nullptr;
  Conn* c = runnable_.front();
  runnable_.pop_front();
  queued_.store(runnable_.size(), std::memory_order_relaxed);
  return c;
}

long EventServer::OnSocketRead(BIO* bio, int oper, const char*, size_t len, int, long, int ret,
                               size_t* processed) {
  if (oper == (BIO_CB_READ | BIO_CB_RETURN)) {
    *reinterpret_cast<bool*>(BIO_get_callback_arg(bio)) =
        ret <= 0 || processed == nullptr || *processed < len;
  }
  return ret;
}

EventServer::Step EventServer::Close(Conn& c) {
  {
    std::lock_guard lock(mu_);
    conns_.erase(&c);
  }
  // Out of the registry first: the timekeeper never shuts down a descriptor reused since.
  ERR_clear_error();
  ::epoll_ctl(epoll_, EPOLL_CTL_DEL, c.fd, nullptr);  // rule 6: no edge names c from here
  c.ssl.reset();
  ::close(c.fd);
  c.fd = -1;
  c.in.Free();
  std::string().swap(c.out);
  std::lock_guard lock(mu_);
  closed_.push_back(&c);  // still kOwned, for good
  if (stopping_ && conns_.empty()) changed_.notify_all();
  return Step::kGone;
}

void EventServer::ReapClosedLocked() {
  if (!passes_) return;
  if (!reaping_.empty()) {
    for (size_t i = 0; i < threads_; ++i) {
      if (passes_[i].load(std::memory_order_acquire) == reapedAt_[i]) return;
    }
    for (Conn* c : reaping_) delete c;
    reaping_.clear();
  }
  if (closed_.empty()) return;
  // Taken after each of these was out of epoll: a thread's count moving past what is read here
  // means it finished the pass in which it might have named one.
  reaping_.swap(closed_);
  reapedAt_.resize(threads_);
  for (size_t i = 0; i < threads_; ++i) {
    reapedAt_[i] = passes_[i].load(std::memory_order_acquire);
  }
}

}  // namespace gpugate::transport
