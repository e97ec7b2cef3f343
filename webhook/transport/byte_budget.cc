#include "transport/byte_budget.h"

namespace gpugate::transport {

bool ByteBudget::TryTake(size_t bytes, size_t requestBytes) {
  const size_t cap = requestBytes > kLargeRequestBytes ? largeLimit_ : limit_;
  size_t used = used_.load(std::memory_order_relaxed);
  do {
    if (bytes > cap || used > cap - bytes) return false;
  } while (!used_.compare_exchange_weak(used, used + bytes, std::memory_order_relaxed));
  RaisePeak(used + bytes);
  return true;
}

void ByteBudget::Take(size_t bytes) {
  RaisePeak(used_.fetch_add(bytes, std::memory_order_relaxed) + bytes);
}

void ByteBudget::RaisePeak(size_t now) {
  size_t peak = peak_.load(std::memory_order_relaxed);
  while (now > peak && !peak_.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
}

}  // namespace gpugate::transport
