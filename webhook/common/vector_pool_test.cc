#include "common/vector_pool.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace gpugate {
namespace {

// Each case on a thread of its own, so it starts with an empty pool.
template <typename F>
void OnFreshThread(F&& f) {
  std::thread(std::forward<F>(f)).join();
}

TEST(VectorPool, GivesBackTheMemoryOfAVectorGivenBefore) {
  OnFreshThread([] {
    std::vector<int> v = VectorPool<int>::Take();
    EXPECT_EQ(v.capacity(), 0u);  // nothing kept yet
    v = {1, 2, 3};
    v.reserve(10);
    const int* memory = v.data();
    VectorPool<int>::Give(std::move(v));
    EXPECT_EQ(VectorPool<int>::KeptCount(), 1u);
    std::vector<int> again = VectorPool<int>::Take();
    EXPECT_TRUE(again.empty());
    EXPECT_EQ(again.capacity(), 10u);
    EXPECT_EQ(again.data(), memory);
    EXPECT_EQ(VectorPool<int>::KeptCount(), 0u);
  });
}

TEST(VectorPool, DestroysTheElementsOfAVectorGiven) {
  OnFreshThread([] {
    auto owned = std::make_shared<int>(7);
    std::vector<std::shared_ptr<int>> v = {owned, owned};
    EXPECT_EQ(owned.use_count(), 3);
    VectorPool<std::shared_ptr<int>>::Give(std::move(v));
    EXPECT_EQ(owned.use_count(), 1);
    EXPECT_EQ(VectorPool<std::shared_ptr<int>>::KeptCount(), 1u);
  });
}

TEST(VectorPool, KeepsOnlyBoundedVectors) {
  struct Case {
    const char* name;
    size_t capacity;  // of each vector given
    size_t given;
    size_t kept;
  };
  constexpr size_t kMaxInts = VectorPool<int>::kKeepBytes / sizeof(int);
  const Case cases[] = {
      {"no memory: nothing to keep", 0, 1, 0},
      {"one small", 4, 1, 1},
      {"exactly the largest kept", kMaxInts, 1, 1},
      {"one element too large", kMaxInts + 1, 1, 0},
      {"as many as kept", 4, VectorPool<int>::kKeepVectors, VectorPool<int>::kKeepVectors},
      {"more than kept: the rest freed", 4, VectorPool<int>::kKeepVectors + 5,
       VectorPool<int>::kKeepVectors},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    OnFreshThread([&c] {
      for (size_t i = 0; i < c.given; ++i) {
        std::vector<int> v;
        v.reserve(c.capacity);
        VectorPool<int>::Give(std::move(v));
      }
      EXPECT_EQ(VectorPool<int>::KeptCount(), c.kept);
    });
  }
}

TEST(VectorPool, EachThreadKeepsItsOwn) {
  OnFreshThread([] {
    std::vector<std::string> v;
    v.reserve(3);
    VectorPool<std::string>::Give(std::move(v));
    size_t elsewhere = 99;
    OnFreshThread([&elsewhere] { elsewhere = VectorPool<std::string>::KeptCount(); });
    EXPECT_EQ(elsewhere, 0u);
    EXPECT_EQ(VectorPool<std::string>::KeptCount(), 1u);
  });
}

}  // namespace
}  // namespace gpugate
