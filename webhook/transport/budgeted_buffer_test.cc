#include "transport/budgeted_buffer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>

namespace gpugate::transport {
namespace {

constexpr size_t kFree = 16 << 10;
constexpr size_t kKiB = 1 << 10;

// Appends `n` bytes of 'x', as a read from a socket would.
int Receive(BudgetedBuffer& buffer, size_t n) {
  return buffer.Fill([n](char* to, size_t room) {
    const size_t wrote = std::min(n, room);
    std::memset(to, 'x', wrote);
    return static_cast<int>(wrote);
  });
}

// Steps on one buffer against a 64 KiB budget with the first 16 KiB free: what each holds, and
// what the budget says is held, which is always the capacity beyond the free part.
TEST(BudgetedBuffer, HoldsFromTheBudgetExactlyTheCapacityBeyondItsFreePart) {
  ByteBudget budget(64 * kKiB);
  BudgetedBuffer buffer(budget, kFree);
  enum Op { kGrow, kReceive, kConsume, kClear, kShrink, kFreeAll };
  const struct {
    const char* step;
    Op op;
    size_t n;             // capacity (kGrow) or bytes (kReceive, kConsume)
    size_t requestBytes;  // kGrow
    bool ok;              // kGrow's answer
    size_t size, capacity, charged;
  } steps[] = {
      {"the first chunk is free", kGrow, kFree, 0, true, 0, kFree, 0},
      {"a head arrives", kReceive, 100, 0, true, 100, kFree, 0},
      {"room for its 20 KiB request", kGrow, 20 * kKiB, 20 * kKiB, true, 100, 20 * kKiB, 4 * kKiB},
      {"growing to less changes nothing", kGrow, 18 * kKiB, 18 * kKiB, true, 100, 20 * kKiB,
       4 * kKiB},
      {"more than the budget holds is refused", kGrow, 90 * kKiB, 90 * kKiB, false, 100, 20 * kKiB,
       4 * kKiB},
      {"the body arrives", kReceive, 20 * kKiB - 100, 0, true, 20 * kKiB, 20 * kKiB, 4 * kKiB},
      {"a full buffer reads nothing", kReceive, 1, 0, true, 20 * kKiB, 20 * kKiB, 4 * kKiB},
      {"shrinking while over the free part keeps it", kShrink, 0, 0, true, 20 * kKiB, 20 * kKiB,
       4 * kKiB},
      {"the request is answered, 1 KiB of the next one stays", kConsume, 19 * kKiB, 0, true, kKiB,
       20 * kKiB, 4 * kKiB},
      {"shrinking gives the charge back and keeps the bytes", kShrink, 0, 0, true, kKiB, kFree, 0},
      {"cleared", kClear, 0, 0, true, 0, kFree, 0},
      {"room for another 20 KiB request", kGrow, 20 * kKiB, 20 * kKiB, true, 0, 20 * kKiB,
       4 * kKiB},
      {"half of it arrives", kReceive, 10 * kKiB, 0, true, 10 * kKiB, 20 * kKiB, 4 * kKiB},
      {"the connection closes: nothing kept, nothing held", kFreeAll, 0, 0, true, 0,
       std::string().capacity(), 0},
  };
  for (const auto& s : steps) {
    SCOPED_TRACE(s.step);
    switch (s.op) {
      case kGrow:
        EXPECT_EQ(buffer.Grow(s.n, s.requestBytes), s.ok);
        break;
      case kReceive:
        Receive(buffer, s.n);
        break;
      case kConsume:
        buffer.Consume(s.n);
        break;
      case kClear:
        buffer.Clear();
        break;
      case kShrink:
        buffer.Shrink();
        break;
      case kFreeAll:
        buffer.Free();
        break;
    }
    EXPECT_EQ(buffer.size(), s.size);
    EXPECT_EQ(buffer.capacity(), s.capacity);
    EXPECT_EQ(buffer.charged(), s.charged);
    EXPECT_EQ(budget.used(), s.charged);
  }
}

TEST(BudgetedBuffer, GivesItsChargeBackWhenDestroyed) {
  ByteBudget budget(64 * kKiB);
  {
    BudgetedBuffer buffer(budget, kFree);
    ASSERT_TRUE(buffer.Grow(kFree + 10 * kKiB, kFree + 10 * kKiB));
    EXPECT_EQ(budget.used(), 10 * kKiB);
  }
  EXPECT_EQ(budget.used(), 0u);
}

}  // namespace
}  // namespace gpugate::transport
