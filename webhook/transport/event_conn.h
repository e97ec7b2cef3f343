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
#include <string>
#include <utility>

#include "common/deadline.h"
#include "tls/openssl_ptr.h"
#include "transport/budgeted_buffer.h"
#include "transport/event_server.h"
#include "transport/head_parser.h"

namespace gpugate::transport {

constexpr size_t kReadChunk = 16 << 10;
// A serving thread takes up to this many epoll events at once, makes their answers, then writes
// them all (EventServer::Work): the answers of a busy server reach each peer in bursts, which
// wake it once a burst instead of once an answer. So an answer waits, at most, for the rest of
// its batch to be made: 16 reviews of a few KB are well under a millisecond.
constexpr int kEventsPerWait = 16;
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

// Who drives a connection, without a lock and without re-arming epoll per request. Every
// connection is registered once, at accept, edge-triggered for reading and writing; an edge is
// reported once, to one serving thread, whoever holds the connection. Ownership lives in `sched`:
//
//   1. kOwned: one thread (a serving thread, or a blocking worker finishing an answer) owns the
//      connection and is the only one to touch its non-atomic state. It is taken by the wake-up
//      that finds kOwned clear (EventServer::Wake) and kept, unchanged, across a hand-off to a
//      blocking worker and while the connection waits in the run queue (a yielded turn).
//   2. kPending: an edge came. A wake-up that finds kOwned set only sets kPending and leaves.
//   3. The owner clears kPending before each pass over the connection (acquire), so whatever
//      arrived before the clear is seen by the pass's reads and writes, and whatever arrives
//      after it sets kPending again.
//   4. A pass that must wait for the peer gives the connection up with one compare-and-swap,
//      kOwned -> 0 (release); it fails only if kPending was set meanwhile, and then the owner
//      makes another pass. So no edge is lost: each one either finds the connection free, and
//      its thread takes it, or finds it owned, and its owner sees kPending before letting go.
//   5. A pass waits for the peer to send only after a read of the socket in that pass returned
//      EAGAIN or fewer bytes than it asked for (`drained`): bytes that arrived before the pass
//      began (their edge already spent) are never left in the socket. It waits for the peer to
//      read only after a write returned EAGAIN, which makes the kernel report the next edge.
//   6. Closing keeps kOwned set for good and takes the socket out of epoll (EPOLL_CTL_DEL)
//      before closing it; the memory stays until every serving thread has gone back to
//      epoll_wait since (EventServer::ReapClosed), so a wake-up for it already taken out of
//      epoll finds kOwned set and leaves, and nothing else can name it.
//
// The atomics give ThreadSanitizer the order epoll and the CAS give the threads.
constexpr uint8_t kOwned = 1;
constexpr uint8_t kPending = 2;

// In the registry (EventServer::conns_) from accept to Close, which frees its socket, TLS state
// and buffers; deleted by the timekeeper once no serving thread can still name it (rule 6).
struct EventServer::Conn {
  // Takes `socket` and `tls` (which may be null: SSL_new failed). Owned by the accepting thread.
  Conn(int socket, tls::SslPtr tls, const HeadLimits& limits, ByteBudget& budget)
      : fd(socket), ssl(std::move(tls)), in(budget, kFreeInputBytes), parser(limits) {}
  ~Conn() {
    ssl.reset();
    if (fd >= 0) ::close(fd);
  }
  Conn(const Conn&) = delete;
  Conn& operator=(const Conn&) = delete;

  int fd;  // -1 once closed; changes only while the connection is out of the registry
  tls::SslPtr ssl;
  std::atomic<uint8_t> sched{kOwned};  // kOwned | kPending, above
  // Read by the timekeeper under mu_, written by the owning thread.
  std::atomic<Deadline> deadline{kNoDeadline};  // of the phase
  std::atomic<uint8_t> phase{kHandshake};
  bool shut = false;  // guarded by mu_: the timekeeper shut the socket down
  // The owner's (kOwned) alone.
  // Set by the socket's read callback (EventServer::OnSocketRead) after each read of the socket:
  // it came back short or empty, so it left nothing behind. Cleared before each pass (rule 5).
  bool drained = false;
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
