// Prometheus metrics for the admission endpoints, rendered in the text exposition format.
// Thread-safe: every method may be called from any server thread.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <tuple>

namespace gpugate::serving {

class Metrics {
 public:
  // Latency buckets in seconds. Admission work takes tens of microseconds, so the buckets start
  // far below the apiserver's own (which start at 5 ms) and are fine through the millisecond range.
  static constexpr std::array<double, 14> kBuckets = {0.00005, 0.0001, 0.00025, 0.0005, 0.001,
                                                      0.0025,  0.005,  0.01,    0.025,  0.05,
                                                      0.1,     0.25,   0.5,     1.0};

  // One HTTP request answered on `route` with `code`.
  void CountRequest(std::string_view route, int code);
  // One admission decision: decision is "allowed", "denied" or "patched".
  void CountDecision(std::string_view route, std::string_view decision, std::string_view reason);
  // A rule found something in a review and had `mode` ("deny", "warn" or "audit") there: counted
  // whatever the answer, so warn and audit modes show what deny would refuse.
  void CountViolation(std::string_view rule, std::string_view mode);
  // Time from a review's first byte decoded to its response encoded.
  void ObserveLatency(std::string_view route, double seconds);
  // A decided review, as the four calls above (its 200, its decision, each rule it violated, its
  // latency) under one lock: what every review answered with a decision records. `violated`:
  // items with string `rule` and `mode` members.
  template <typename Violated>
  void CountReview(std::string_view route, std::string_view decision, std::string_view reason,
                   const Violated& violated, double seconds) {
    std::lock_guard lock(mu_);
    CountDecidedLocked(route, decision, reason, seconds);
    for (const auto& v : violated) CountViolationLocked(v.rule, v.mode);
  }

  std::string Render() const;

 private:
  struct Histogram {
    std::array<uint64_t, kBuckets.size()> buckets{};  // non-cumulative counts
    uint64_t count = 0;
    double sum = 0;
  };

  void CountDecidedLocked(std::string_view route, std::string_view decision,
                          std::string_view reason, double seconds);
  void CountViolationLocked(std::string_view rule, std::string_view mode);
  void ObserveLatencyLocked(std::string_view route, double seconds);

  // Keys compare with views of themselves (std::less<>), so counting a series that exists
  // builds no strings.
  mutable std::mutex mu_;
  std::map<std::tuple<std::string, int>, uint64_t, std::less<>> requests_;  // guarded by mu_
  std::map<std::tuple<std::string, std::string, std::string>, uint64_t, std::less<>>
      decisions_;  // guarded by mu_
  std::map<std::tuple<std::string, std::string>, uint64_t, std::less<>> violations_;  // mu_
  std::map<std::string, Histogram, std::less<>> latency_;  // guarded by mu_
};

}  // namespace gpugate::serving
