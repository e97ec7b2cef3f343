#include "serving/metrics.h"

#include <algorithm>
#include <cstdio>

#include "common/strings.h"

namespace gpugate::serving {
namespace {

std::string Number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

// The value under `key` (views of the map's key), made on its first use.
template <typename Map, typename Key>
typename Map::mapped_type& At(Map& map, const Key& key) {
  auto it = map.find(key);
  if (it == map.end()) it = map.emplace(typename Map::key_type(key), 0).first;
  return it->second;
}

}  // namespace

void Metrics::CountRequest(std::string_view route, int code) {
  std::lock_guard lock(mu_);
  ++At(requests_, std::tuple(route, code));
}

void Metrics::CountDecision(std::string_view route, std::string_view decision,
                            std::string_view reason) {
  std::lock_guard lock(mu_);
  ++At(decisions_, std::tuple(route, decision, reason));
}

void Metrics::CountViolation(std::string_view rule, std::string_view mode) {
  std::lock_guard lock(mu_);
  CountViolationLocked(rule, mode);
}

void Metrics::ObserveLatency(std::string_view route, double seconds) {
  std::lock_guard lock(mu_);
  ObserveLatencyLocked(route, seconds);
}

void Metrics::CountDecidedLocked(std::string_view route, std::string_view decision,
                                 std::string_view reason, double seconds) {
  ++At(requests_, std::tuple(route, 200));
  ++At(decisions_, std::tuple(route, decision, reason));
  ObserveLatencyLocked(route, seconds);
}

void Metrics::CountViolationLocked(std::string_view rule, std::string_view mode) {
  ++At(violations_, std::tuple(rule, mode));
}

void Metrics::ObserveLatencyLocked(std::string_view route, double seconds) {
  size_t i = std::lower_bound(kBuckets.begin(), kBuckets.end(), seconds) - kBuckets.begin();
  auto it = latency_.find(route);
  if (it == latency_.end()) it = latency_.emplace(std::string(route), Histogram{}).first;
  Histogram& h = it->second;
  if (i < kBuckets.size()) ++h.buckets[i];
  ++h.count;
  h.sum += seconds;
}

std::string Metrics::Render() const {
  std::lock_guard lock(mu_);
  std::string out;
  out += "# HELP gpugate_http_requests_total HTTP requests answered, by route and status code.\n";
  out += "# TYPE gpugate_http_requests_total counter\n";
  for (const auto& [key, n] : requests_) {
    out += "gpugate_http_requests_total{route=\"" + PrometheusLabelValue(std::get<0>(key)) +
           "\",code=\"" + std::to_string(std::get<1>(key)) + "\"} " + std::to_string(n) + "\n";
  }
  out +=
      "# HELP gpugate_admission_decisions_total Admission decisions, by route, decision and "
      "reason.\n";
  out += "# TYPE gpugate_admission_decisions_total counter\n";
  for (const auto& [key, n] : decisions_) {
    out += "gpugate_admission_decisions_total{route=\"" + PrometheusLabelValue(std::get<0>(key)) +
           "\",decision=\"" + PrometheusLabelValue(std::get<1>(key)) + "\",reason=\"" +
           PrometheusLabelValue(std::get<2>(key)) + "\"} " + std::to_string(n) + "\n";
  }
  out +=
      "# HELP gpugate_policy_violations_total Reviews in which a rule found something, by rule "
      "and by its mode there (deny refused them, warn and audit admitted them).\n";
  out += "# TYPE gpugate_policy_violations_total counter\n";
  for (const auto& [key, n] : violations_) {
    out += "gpugate_policy_violations_total{rule=\"" + PrometheusLabelValue(std::get<0>(key)) +
           "\",mode=\"" + PrometheusLabelValue(std::get<1>(key)) + "\"} " + std::to_string(n) +
           "\n";
  }
  out += "# HELP gpugate_admission_duration_seconds Time to decode, decide and encode a review.\n";
  out += "# TYPE gpugate_admission_duration_seconds histogram\n";
  for (const auto& [route, h] : latency_) {
    const std::string r = PrometheusLabelValue(route);
    uint64_t cumulative = 0;
    for (size_t i = 0; i < kBuckets.size(); ++i) {
      cumulative += h.buckets[i];
      out += "gpugate_admission_duration_seconds_bucket{route=\"" + r + "\",le=\"" +
             Number(kBuckets[i]) + "\"} " + std::to_string(cumulative) + "\n";
    }
    out += "gpugate_admission_duration_seconds_bucket{route=\"" + r + "\",le=\"+Inf\"} " +
           std::to_string(h.count) + "\n";
    out += "gpugate_admission_duration_seconds_sum{route=\"" + r + "\"} " + Number(h.sum) + "\n";
    out += "gpugate_admission_duration_seconds_count{route=\"" + r + "\"} " +
           std::to_string(h.count) + "\n";
  }
  return out;
}

}  // namespace gpugate::serving
