// One budget for the request bytes the server holds in memory across all its connections, so a
// few peers declaring large bodies and never finishing them cannot take the process past its
// memory limit. A request that would take the budget past its limit is refused (the server
// answers 503 and closes its connection) instead of being buffered.
//
// A quarter of the budget is kept for requests of at most 1 MiB, the API server's ordinary
// reviews (a few KB to a few hundred KB): larger requests together may hold at most three
// quarters, so abusers declaring large bodies leave room for every ordinary review.
//
// Thread-safe: any serving or blocking thread takes and gives.
#pragma once

#include <atomic>
#include <cstddef>

namespace gpugate::transport {

class ByteBudget {
 public:
  // A request larger than this (head and body) is "large".
  static constexpr size_t kLargeRequestBytes = 1 << 20;

  explicit ByteBudget(size_t limit) : limit_(limit), largeLimit_(limit - limit / 4) {}
  ByteBudget(const ByteBudget&) = delete;
  ByteBudget& operator=(const ByteBudget&) = delete;

  // Takes `bytes` more for a request of `requestBytes` in all, if that keeps the bytes held
  // within the limit (for a large request, within three quarters of it); false, and nothing
  // taken, otherwise.
  bool TryTake(size_t bytes, size_t requestBytes);
  // Takes `bytes` whatever the limit: for the few bytes an allocation rounds a request up by.
  void Take(size_t bytes);
  void Give(size_t bytes) { used_.fetch_sub(bytes, std::memory_order_relaxed); }

  size_t limit() const { return limit_; }
  size_t used() const { return used_.load(std::memory_order_relaxed); }
  size_t peak() const { return peak_.load(std::memory_order_relaxed); }

 private:
  void RaisePeak(size_t now);

  const size_t limit_;
  const size_t largeLimit_;
  std::atomic<size_t> used_{0};
  std::atomic<size_t> peak_{0};
};

}  // namespace gpugate::transport
