#include "transport/open_connections.h"

#include <sys/socket.h>

#include <memory>

namespace gpugate::transport {
namespace {

// Where a connection is. Only the connection's own thread moves it between the first four; the
// watchdog moves it from kHandshake or kHeaders to kExpired, from which nothing moves it.
enum Phase : int { kHandshake, kIdle, kHeaders, kBusy, kExpired };

// How often the watchdog looks: a deadline is enforced up to this late.
constexpr std::chrono::milliseconds kTick{250};

int64_t Now() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

// Hung on each tracked SSL object; freed, and forgotten, with the SSL object. A phase change
// writes `deadline` before `phase` when arming and after it when disarming, and the watchdog
// reads `phase` first and expires a connection only by compare-and-swap on the phase it saw, so
// a connection that has moved on is never cut on a stale deadline.
struct OpenConnections::Entry {
  OpenConnections* owner;
  int fd;
  std::atomic<int> phase{kHandshake};
  std::atomic<int64_t> deadline{0};  // steady-clock nanoseconds; 0: none
};

const OpenConnections::ExIndexes& OpenConnections::Indexes() {
  static const ExIndexes indexes{
      .ctx = SSL_CTX_get_ex_new_index(0, nullptr, nullptr, nullptr, nullptr),
      .ssl = SSL_get_ex_new_index(0, nullptr, nullptr, nullptr, &OnFree)};
  return indexes;
}

OpenConnections::~OpenConnections() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  stop_.notify_all();
  if (watchdog_.joinable()) watchdog_.join();
}

void OpenConnections::Track(SSL_CTX& ctx) {
  SSL_CTX_set_ex_data(&ctx, Indexes().ctx, this);
  SSL_CTX_set_info_callback(&ctx, &OnInfo);
  SSL_CTX_set_msg_callback(&ctx, &OnMessage);
}

void OpenConnections::EnforceDeadlines(ConnectionDeadlines deadlines) {
  deadlines_ = deadlines;
  if (deadlines.handshake.count() > 0 || deadlines.headers.count() > 0) {
    watchdog_ = std::thread([this] { Watch(); });
  }
}

int64_t OpenConnections::DeadlineAfter(std::chrono::milliseconds limit) const {
  if (limit.count() <= 0) return 0;
  return Now() + std::chrono::duration_cast<std::chrono::nanoseconds>(limit).count();
}

OpenConnections::Entry* OpenConnections::EntryOf(const SSL* ssl) {
  return ssl ? static_cast<Entry*>(SSL_get_ex_data(ssl, Indexes().ssl)) : nullptr;
}

void OpenConnections::OnInfo(const SSL* ssl, int where, int) {
  if (where & SSL_CB_HANDSHAKE_DONE) {
    if (Entry* e = EntryOf(ssl)) {
      int from = kHandshake;
      if (e->phase.compare_exchange_strong(from, kIdle)) e->deadline = 0;
    }
    return;
  }
  // HANDSHAKE_START also fires for TLS 1.3 post-handshake messages; record a connection once.
  const ExIndexes& ix = Indexes();
  if (!(where & SSL_CB_HANDSHAKE_START) || EntryOf(ssl) != nullptr) return;
  auto* owner = static_cast<OpenConnections*>(SSL_CTX_get_ex_data(SSL_get_SSL_CTX(ssl), ix.ctx));
  int fd = SSL_get_fd(ssl);
  if (owner == nullptr || fd < 0) return;
  auto entry = std::make_unique<Entry>(owner, fd);
  entry->deadline = owner->DeadlineAfter(owner->deadlines_.handshake);
  if (SSL_set_ex_data(const_cast<SSL*>(ssl), ix.ssl, entry.get()) != 1) return;
  std::lock_guard lock(owner->mu_);
  owner->entries_.insert(entry.release());
}

// Called for every TLS record header read or written. The first record read while idle starts a
// request; the first written after a request's start is its answer (or httplib's refusal of a
// malformed one), which ends it.
void OpenConnections::OnMessage(int write, int, int contentType, const void*, size_t, SSL* ssl,
                                void*) {
  if (contentType != SSL3_RT_HEADER) return;
  Entry* e = EntryOf(ssl);
  if (e == nullptr) return;
  if (!write) {
    if (e->phase != kIdle) return;
    e->deadline = e->owner->DeadlineAfter(e->owner->deadlines_.headers);
    int from = kIdle;
    e->phase.compare_exchange_strong(from, kHeaders);
    return;
  }
  for (int from : {kHeaders, kBusy}) {
    if (e->phase.compare_exchange_strong(from, kIdle)) {
      e->deadline = 0;
      return;
    }
  }
}

void OpenConnections::HeadersRead(const SSL* ssl) {
  Entry* e = EntryOf(ssl);
  if (e == nullptr) return;
  // From kHeaders, or from kIdle when the request arrived in the same record as the one before.
  for (int from : {kHeaders, kIdle}) {
    if (e->phase.compare_exchange_strong(from, kBusy)) {
      e->deadline = 0;
      return;
    }
  }
}

void OpenConnections::OnFree(void*, void* ptr, CRYPTO_EX_DATA*, int, long, void*) {
  std::unique_ptr<Entry> entry(static_cast<Entry*>(ptr));
  if (!entry) return;  // an SSL object that never started a handshake
  std::lock_guard lock(entry->owner->mu_);
  entry->owner->entries_.erase(entry.get());
}

void OpenConnections::Watch() {
  std::unique_lock lock(mu_);
  while (!stop_.wait_for(lock, kTick, [this] { return stopping_; })) {
    const int64_t now = Now();
    for (Entry* e : entries_) {
      int phase = e->phase;
      if (phase != kHandshake && phase != kHeaders) continue;
      const int64_t deadline = e->deadline;
      if (deadline == 0 || deadline > now) continue;
      if (!e->phase.compare_exchange_strong(phase, kExpired)) continue;
      // The worker's pending read returns end-of-file; it closes the connection as it would
      // after a read timeout. The descriptor is still this connection's: OnFree needs mu_.
      ::shutdown(e->fd, SHUT_RDWR);
      ++timedOut_[phase == kHandshake ? 0 : 1];
    }
  }
}

size_t OpenConnections::ShutdownReads() {
  std::lock_guard lock(mu_);
  for (Entry* e : entries_) ::shutdown(e->fd, SHUT_RD);
  return entries_.size();
}

std::string OpenConnections::RenderMetrics() const {
  std::lock_guard lock(mu_);
  return "# HELP gpugate_http_connections_timed_out_total Connections closed for taking too long "
         "over their TLS handshake or a request's headers, by phase.\n"
         "# TYPE gpugate_http_connections_timed_out_total counter\n"
         "gpugate_http_connections_timed_out_total{phase=\"handshake\"} " +
         std::to_string(timedOut_[0]) +
         "\n"
         "gpugate_http_connections_timed_out_total{phase=\"headers\"} " +
         std::to_string(timedOut_[1]) + "\n";
}

}  // namespace gpugate::transport
