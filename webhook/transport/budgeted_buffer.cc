#include "transport/budgeted_buffer.h"

#include <algorithm>

namespace gpugate::transport {

bool BudgetedBuffer::Grow(size_t capacity, size_t requestBytes) {
  if (bytes_.capacity() >= capacity) return true;
  const size_t charge = capacity > freeBytes_ ? capacity - freeBytes_ : 0;
  if (charge > charged_ && !budget_.TryTake(charge - charged_, requestBytes)) return false;
  // A fresh string reserves exactly what is asked for (growing one in place may double it).
  std::string grown;
  grown.reserve(capacity);
  grown.append(bytes_);
  bytes_.swap(grown);
  charged_ = std::max(charge, charged_);
  Recharge();
  return true;
}

void BudgetedBuffer::Shrink() {
  if (bytes_.capacity() <= freeBytes_ || bytes_.size() > freeBytes_) return;
  std::string small;
  if (!bytes_.empty()) {
    small.reserve(freeBytes_);
    small.append(bytes_);
  }
  bytes_.swap(small);
  Recharge();
}

void BudgetedBuffer::Free() {
  std::string().swap(bytes_);
  Recharge();
}

void BudgetedBuffer::Recharge() {
  const size_t capacity = bytes_.capacity();
  const size_t charge = capacity > freeBytes_ ? capacity - freeBytes_ : 0;
  if (charge > charged_) budget_.Take(charge - charged_);
  if (charge < charged_) budget_.Give(charged_ - charge);
  charged_ = charge;
}

}  // namespace gpugate::transport
