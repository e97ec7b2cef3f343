// A span of time [from, to) and the usage vocabulary every file of the layer shares: what usage
// is kept per (UsageKey) and in what unit.
#pragma once

#include <algorithm>
#include <chrono>
#include <compare>
#include <cstdint>
#include <string>

namespace gpugate::usage {

using std::chrono::sys_seconds;

// [from, to): instants, UTC.
struct Span {
  sys_seconds from;
  sys_seconds to;

  bool operator==(const Span&) const = default;
};

// The seconds `a` and `b` share, 0 when they do not meet.
inline std::chrono::seconds Overlap(Span a, Span b) {
  sys_seconds from = std::max(a.from, b.from), to = std::min(a.to, b.to);
  return to > from ? to - from : std::chrono::seconds(0);
}

// What usage is kept per: a namespace, a resource or weighted figure ("nvidia.com/gpu",
// "gpu-equivalents") and the GPU model (a quota flavor, "a100") or "" when the pod was not
// pinned to exactly one.
struct UsageKey {
  std::string ns;
  std::string resource;
  std::string model;

  auto operator<=>(const UsageKey&) const = default;
};

// Usage is counted in milli-GPU-seconds: milli-units held (quota::Amounts' unit) times seconds
// held, exact in int64 up to 2.5 million GPU-years. One GPU-hour is 3,600,000 of them.
inline constexpr int64_t kMilliGpuSecondsPerHour = 3'600'000;

}  // namespace gpugate::usage
