// EventServer's connection state and the limits of a connection's turn, shared by the files that
// make up the server (event_server.cc: listening, threads, deadlines; event_connection.cc: TLS
// and a connection's turn; event_requests.cc: framing, handling, the request buffer). Internal
// to EventServer: nothing else includes it.
#pragma once

#include <openssl/ssl.h>
#include <unistd.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <utility>

#include "common/deadline.h"
#include "tls/openssl_ptr.h"
#include "transport/budgeted_buffer.h"
#include "transport/event_server.h"
#include "transport/head_parser.h"

namespace gpugate::transport {

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

// Owned by the registry (EventServer::conns_) from accept to Close, which deletes it; its socket
// and TLS state go with it, in ~Conn and nowhere else.
struct EventServer::Conn {
  // Takes `socket` and `tls` (which may be null: SSL_new failed).
  Conn(int socket, tls::SslPtr tls, const HeadLimits& limits, ByteBudget& budget)
      : fd(socket), ssl(std::move(tls)), in(budget, kFreeInputBytes), parser(limits) {}
  ~Conn() {
    ssl.reset();
    ::close(fd);
  }
  Conn(const Conn&) = delete;
  Conn& operator=(const Conn&) = delete;

  const int fd;
  tls::SslPtr ssl;
  // Read by the timekeeper under mu_, written by the owning thread.
  std::atomic<Deadline> deadline{kNoDeadline};  // of the phase
  std::atomic<uint8_t> phase{kHandshake};
  // Handing the connection from one thread to the next goes through epoll, which orders the
  // two but is invisible to ThreadSanitizer. The arming thread holds this across epoll_ctl and
  // the woken thread takes it once before touching the connection: the same order, in terms
  // the sanitizer checks, for two uncontended lock operations per turn.
  std::mutex handoff;
  bool shut = false;  // guarded by mu_: the timekeeper shut the socket down
  // Owned by whichever thread epoll handed the connection to.
  BudgetedBuffer in;  // bytes read and not yet consumed by a request
  std::string out;    // an answer not yet fully written
  size_t outOff = 0;
  size_t served = 0;
  HeadParser parser;  // the head of the request at the front of `in`
  // The request at the front of `in`, from its head on: what its answer's framing needs once
  // the head's views are gone. Set when its head is complete (Frame); back to these defaults,
  // in QueueAnswer only, once its answer is queued.
  struct Exchange {
    bool keepAlive = false;
    bool headOnly = false;  // a HEAD request
    size_t consumed = 0;    // its head and body bytes at the front of `in`
  } exchange;
  // What Flush does once `out` is written; set with each answer (QueueAnswer).
  enum class AfterWrite : uint8_t {
    kKeepOpen,
    kClose,
    kLinger,  // close, after discarding what the peer still sends: the request was refused unread
  } afterWrite = AfterWrite::kKeepOpen;
  size_t discarded = 0;  // bytes thrown away while lingering
};

}  // namespace gpugate::transport
