// A connection's request buffer and its share of the server's ByteBudget (byte_budget.h). The
// first `freeBytes` of capacity are the connection's own, a fixed cost like its TLS state and
// bounded by maxConnections; whatever capacity it has beyond them is held from the budget.
//
// Invariant, after every call: charged() == capacity beyond freeBytes. Only Grow may refuse for
// want of budget; the other calls never raise the capacity past what was granted (Shrink may
// round up by the few bytes an allocation adds, which are taken whatever the limit).
//
// Not thread-safe: one thread at a time, the connection's owner. The budget is shared.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "transport/byte_budget.h"

namespace gpugate::transport {

class BudgetedBuffer {
 public:
  // `budget` must outlive the buffer.
  BudgetedBuffer(ByteBudget& budget, size_t freeBytes) : budget_(budget), freeBytes_(freeBytes) {}
  ~BudgetedBuffer() { budget_.Give(charged_); }
  BudgetedBuffer(const BudgetedBuffer&) = delete;
  BudgetedBuffer& operator=(const BudgetedBuffer&) = delete;

  std::string_view view() const { return bytes_; }
  size_t size() const { return bytes_.size(); }
  bool empty() const { return bytes_.empty(); }
  size_t capacity() const { return bytes_.capacity(); }
  size_t room() const { return bytes_.capacity() - bytes_.size(); }
  size_t charged() const { return charged_; }

  // Grows the capacity to `capacity` bytes, for a request of `requestBytes` in all (0 while its
  // size is unknown: ByteBudget treats large requests apart); false, and nothing changed, when
  // the budget has no room for it.
  [[nodiscard]] bool Grow(size_t capacity, size_t requestBytes);
  // Gives back the capacity beyond freeBytes when what is held (a pipelined request's start)
  // fits in freeBytes; does nothing otherwise.
  void Shrink();

  // Appends, into room(), what `read(char* to, size_t room)` returns it wrote there (an int as
  // SSL_read returns: <= 0 wrote nothing), and returns that. Never reallocates.
  template <typename Read>
  int Fill(Read read) {
    const size_t room = this->room();
    int n = 0;
    bytes_.resize_and_overwrite(bytes_.size() + room, [&](char* p, size_t size) {
      n = read(p + size - room, room);
      return size - room + static_cast<size_t>(n > 0 ? n : 0);
    });
    return n;
  }
  // Drops the first `n` bytes (a request answered); the capacity stays.
  void Consume(size_t n) { bytes_.erase(0, n); }
  // Drops every byte; the capacity stays.
  void Clear() { bytes_.clear(); }
  // Drops every byte and gives back all of the capacity, and the budget it held.
  void Free();

 private:
  // Settles charged_ with the capacity now.
  void Recharge();

  ByteBudget& budget_;
  const size_t freeBytes_;
  std::string bytes_;   // received and not yet consumed by a request
  size_t charged_ = 0;  // of budget_: capacity beyond freeBytes_
};

}  // namespace gpugate::transport
