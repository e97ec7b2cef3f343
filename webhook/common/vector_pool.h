// Emptied vectors kept by each thread for its next use of a vector of the same type.
//
// A review builds a dozen short vectors (a pod spec's containers, each container's limits and
// requests, the tolerations...) and frees them all once it is answered. A thread that takes its
// vectors from here and gives them back when done allocates none of them again once it has
// answered a review as large: the same reuse the walk's working lists get (ScratchLease).
//
//   std::vector<T> v = VectorPool<T>::Take();  // empty; the memory of one given back, if any
//   ...
//   VectorPool<T>::Give(std::move(v));         // emptied; its memory kept for a later Take
//
// Bounded, so a huge or hostile request cannot make a thread hold its memory: at most
// kKeepVectors vectors per type and thread, each of at most kKeepBytes of capacity; any other is
// freed as before. Each thread has its own pool: no lock, and a vector given back on another
// thread than it was taken on simply joins that thread's pool.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace gpugate {

template <typename T>
class VectorPool {
 public:
  static constexpr size_t kKeepVectors = 16;
  static constexpr size_t kKeepBytes = 2048;

  // An empty vector: one given back before on this thread, with its capacity, when there is one.
  static std::vector<T> Take() {
    std::vector<std::vector<T>>& kept = Kept();
    if (kept.empty()) return {};
    std::vector<T> v = std::move(kept.back());
    kept.pop_back();
    return v;
  }

  // Destroys `v`'s elements and keeps its memory for a later Take, unless it has none, has more
  // than kKeepBytes or the pool is full (then it is freed here).
  static void Give(std::vector<T>&& v) {
    std::vector<T> given = std::move(v);
    given.clear();
    std::vector<std::vector<T>>& kept = Kept();
    const size_t capacity = given.capacity();
    if (capacity == 0 || capacity > kKeepBytes / sizeof(T) || kept.size() >= kKeepVectors) return;
    kept.push_back(std::move(given));
  }

  // How many vectors this thread keeps now (for tests).
  static size_t KeptCount() { return Kept().size(); }

 private:
  static std::vector<std::vector<T>>& Kept() {
    thread_local std::vector<std::vector<T>> kept = [] {
      std::vector<std::vector<T>> k;
      k.reserve(kKeepVectors);
      return k;
    }();
    return kept;
  }
};

}  // namespace gpugate
