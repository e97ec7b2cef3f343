// A connection's turn on a serving thread: the TLS handshake, reading and serving what arrived,
// writing answers, the linger after a refusal, and giving the thread up.
#include <openssl/err.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <string_view>

#include "transport/event_conn.h"
#include "transport/event_server.h"

namespace gpugate::transport {
namespace {

void ReleaseIfLarge(std::string& s) {
  if (s.empty() && s.capacity() > kKeepCapacity) std::string().swap(s);
}

// SSL_get_error tells what the last TLS call did only if the thread's OpenSSL error queue was
// empty before it: anything left there (by a handler, or the cluster layer's API client on this
// thread) reads as SSL_ERROR_SSL and would close a healthy connection. So every TLS call on a
// connection starts with an empty queue. Looking costs a fifth of clearing (18 ns against 101
// on the development machine), and the queue is nearly always empty.
void ClearErrors() {
  if (ERR_peek_error() != 0) ERR_clear_error();
}

int TlsHandshake(SSL* ssl) {
  ClearErrors();
  return SSL_do_handshake(ssl);
}

int TlsRead(SSL* ssl, char* to, size_t room) {
  ClearErrors();
  return SSL_read(ssl, to, static_cast<int>(room));
}

int TlsWrite(SSL* ssl, std::string_view bytes) {
  ClearErrors();
  return SSL_write(ssl, bytes.data(), static_cast<int>(bytes.size()));
}

// close_notify, best effort: the socket closes either way.
void TlsShutdown(SSL* ssl) {
  ClearErrors();
  SSL_shutdown(ssl);
}

}  // namespace

EventServer::Step EventServer::Drive(Conn& c, bool mayDefer) {
  const uint8_t phase = c.phase.load(std::memory_order_relaxed);
  if (phase == kLinger) return Linger(c);
  if (phase == kHandshake) {
    if (Step s = Handshake(c); s != Step::kGoOn) return s;
  }
  int answers = 0;
  if (!c.out.empty()) {  // an answer deferred, or one the peer was slow to take
    if (Step s = Flush(c); s != Step::kGoOn) return s;
    answers = 1;
  }
  return ReadAndServe(c, mayDefer, answers);
}

EventServer::Step EventServer::Handshake(Conn& c) {
  int rc = TlsHandshake(c.ssl.get());
  if (rc == 1) {
    SetPhase(c, kIdle);
    return Step::kGoOn;
  }
  switch (SSL_get_error(c.ssl.get(), rc)) {
    case SSL_ERROR_WANT_READ:   // a read returned EAGAIN: the next bytes are an edge
    case SSL_ERROR_WANT_WRITE:  // a write returned EAGAIN: so is the room to write
      return Step::kWait;
    default:
      return Close(c);  // not TLS, refused, or gone: nothing to answer
  }
}

EventServer::Step EventServer::Flush(Conn& c) {
  while (c.outOff < c.out.size()) {
    int n = TlsWrite(c.ssl.get(), std::string_view(c.out).substr(c.outOff));
    if (n > 0) {
      c.outOff += static_cast<size_t>(n);
      continue;
    }
    switch (SSL_get_error(c.ssl.get(), n)) {
      case SSL_ERROR_WANT_WRITE:
      case SSL_ERROR_WANT_READ:  // the answer waits on a TLS record from the peer
        SetPhase(c, kWriting);
        return Step::kWait;
      default:
        return Close(c);  // the peer left
    }
  }
  c.out.clear();
  c.outOff = 0;
  ReleaseIfLarge(c.out);
  switch (c.afterWrite) {
    case Conn::AfterWrite::kKeepOpen:
      return Step::kGoOn;
    case Conn::AfterWrite::kClose:
      TlsShutdown(c.ssl.get());
      return Close(c);
    case Conn::AfterWrite::kLinger:
      TlsShutdown(c.ssl.get());
      return Linger(c);
  }
  return Close(c);  // unreachable: every AfterWrite is above
}

// A refused request's body was never read, and the peer may still be sending it: closing now
// would make the kernel answer those bytes with a reset, which can destroy the refusal before
// the peer reads it. So stop writing, read and discard (raw bytes: TLS is over) until the peer
// closes, up to twice the body cap or the body deadline, then close.
EventServer::Step EventServer::Linger(Conn& c) {
  if (c.phase.load(std::memory_order_relaxed) != kLinger) {
    ::shutdown(c.fd, SHUT_WR);
    c.in.Clear();
    c.in.Shrink();
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
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return Step::kWait;
    if (n < 0 && errno == EINTR) continue;
    break;  // the peer closed, or the socket failed
  }
  return Close(c);
}

EventServer::Step EventServer::ReadAndServe(Conn& c, bool mayDefer, int answers) {
  int reads = 0;
  size_t bytes = 0;
  for (;;) {
    if (ServeBuffered(c) == Step::kGone) return Step::kGone;
    if (!c.out.empty()) {
      if (mayDefer) return Step::kDefer;
      if (Step s = Flush(c); s != Step::kGoOn) return s;
      if (++answers >= kAnswersPerTurn) return Step::kYield;
      continue;  // another whole request may be buffered
    }
    if (answers > 0 && c.drained && c.in.empty() && !SSL_has_pending(c.ssl.get())) {
      // Just answered; neither the buffer nor OpenSSL holds a byte of another request, and this
      // pass's last read left the socket empty: a peer that waits for each answer has not sent
      // its next one yet, so a read now would only return EAGAIN. Its bytes will be an edge.
      return Idle(c);
    }
    if (reads >= kReadsPerTurn || bytes >= kBytesPerTurn) return Step::kYield;
    // Need more bytes. A body has its room already (Frame); a head grows a chunk at a time.
    if (c.in.room() < kReadChunk && c.parser.state() == HeadParser::State::kIncomplete &&
        !GrowInput(c, c.in.size() + kReadChunk, 0)) {
      QueueAnswer(c, OverBudget(), /*refused=*/true);
      continue;  // to write the refusal
    }
    int n = c.in.Fill([&](char* to, size_t room) { return TlsRead(c.ssl.get(), to, room); });
    if (n > 0) {
      ++reads;
      bytes += static_cast<size_t>(n);
      continue;
    }
    switch (SSL_get_error(c.ssl.get(), n)) {
      case SSL_ERROR_WANT_READ:
        return c.in.empty() ? Idle(c) : Step::kWait;
      case SSL_ERROR_WANT_WRITE:
        return Step::kWait;
      case SSL_ERROR_ZERO_RETURN:  // close_notify
        TlsShutdown(c.ssl.get());
        return Close(c);
      default:
        return Close(c);  // reset, end of file, or a TLS error
    }
  }
}

// Between requests: the keep-alive deadline runs, the request buffer goes back, and the next
// request's first bytes wake the connection.
EventServer::Step EventServer::Idle(Conn& c) {
  SetPhase(c, kIdle);
  c.in.Shrink();
  return Step::kWait;
}

}  // namespace gpugate::transport
