#include "transport/byte_budget.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

namespace gpugate::transport {
namespace {

constexpr size_t kMiB = 1 << 20;

// Steps against a 16 MiB budget: what each request may take, given what is held before it.
TEST(ByteBudget, LargeRequestsLeaveAQuarterForOrdinaryOnes) {
  ByteBudget budget(16 * kMiB);
  const struct {
    const char* step;
    size_t bytes;         // taken (or given back, when `give`)
    size_t requestBytes;  // the whole request's size
    bool give;
    bool taken;
    size_t usedAfter;
  } steps[] = {
      {"an 8 MiB body", 8 * kMiB, 8 * kMiB, false, true, 8 * kMiB},
      {"another 4 MiB body: 12 MiB, the large share, is held", 4 * kMiB, 4 * kMiB, false, true,
       12 * kMiB},
      {"one byte more of large bodies", 1, 2 * kMiB, false, false, 12 * kMiB},
      {"an ordinary 300 KB review", 300'000, 300'000, false, true, 12 * kMiB + 300'000},
      {"ordinary reviews up to the limit", 4 * kMiB - 300'000, kMiB, false, true, 16 * kMiB},
      {"one byte more of anything", 1, 100, false, false, 16 * kMiB},
      {"the 8 MiB body is answered", 8 * kMiB, 0, true, true, 8 * kMiB},
      {"a large body fits again", 4 * kMiB, 4 * kMiB, false, true, 12 * kMiB},
      {"more than the whole budget at once", 17 * kMiB, 17 * kMiB, false, false, 12 * kMiB},
  };
  for (const auto& s : steps) {
    SCOPED_TRACE(s.step);
    if (s.give) {
      budget.Give(s.bytes);
    } else {
      EXPECT_EQ(budget.TryTake(s.bytes, s.requestBytes), s.taken);
    }
    EXPECT_EQ(budget.used(), s.usedAfter);
  }
  EXPECT_EQ(budget.peak(), 16 * kMiB);
  EXPECT_EQ(budget.limit(), 16 * kMiB);
}

// Threads racing for the last of the budget never take it past the limit together.
TEST(ByteBudget, ConcurrentTakersNeverPassTheLimit) {
  ByteBudget budget(1000);
  std::atomic<int> taken = 0;
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 1000; ++i) {
        if (budget.TryTake(7, 7)) ++taken;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(taken, 1000 / 7);
  EXPECT_EQ(budget.used(), size_t(1000 / 7 * 7));
  EXPECT_LE(budget.peak(), 1000u);
}

}  // namespace
}  // namespace gpugate::transport
