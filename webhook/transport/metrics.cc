#include "transport/metrics.h"

#include <algorithm>
#include <cstdio>

#include "common/strings.h"

namespace gpugate::transport {
namespace {

std::string Number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

}  // namespace

void Metrics::CountRequest(std::string_view route, int code) {
  std::lock_guard lock(mu_);
  ++requests_[{std::string(route), code}];
}

void Metrics::CountDecision(std::string_view route, std::string_view decision,
                            std::string_view reason) {
  std::lock_guard lock(mu_);
  ++decisions_[{std::string(route), std::string(decision), std::string(reason)}];
}

void Metrics::ObserveLatency(std::string_view route, double seconds) {
  size_t i = std::lower_bound(kBuckets.begin(), kBuckets.end(), seconds) - kBuckets.begin();
  std::lock_guard lock(mu_);
  Histogram& h = latency_[std::string(route)];
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

std::string RenderWorkerMetrics(const WorkerStats& s) {
  struct Family {
    const char* name;
    const char* type;
    const char* help;
    uint64_t value;
  } families[] = {
      {"gpugate_http_workers", "gauge", "Threads serving connections, idle ones included.",
       s.threads},
      {"gpugate_http_workers_busy", "gauge", "Threads serving an open connection.", s.busy},
      {"gpugate_http_workers_peak", "gauge", "Most threads alive at once since start.",
       s.peakThreads},
      {"gpugate_http_connections_waiting", "gauge",
       "Accepted connections waiting for a thread (only when the pool is at its limit).",
       s.waiting},
      {"gpugate_http_connections_total", "counter", "Connections accepted.", s.tasks},
      {"gpugate_http_connections_delayed_total", "counter",
       "Connections that had to wait because the pool was at its limit.", s.delayed},
      {"gpugate_http_worker_stack_bytes", "gauge", "Stack size of each connection thread.",
       s.stackBytes},
      {"gpugate_http_worker_stack_peak_bytes", "gauge",
       "Most of one connection thread's stack ever touched (page granular).", s.stackPeakBytes},
  };
  std::string out;
  for (const Family& f : families) {
    out += std::string("# HELP ") + f.name + " " + f.help + "\n";
    out += std::string("# TYPE ") + f.name + " " + f.type + "\n";
    out += std::string(f.name) + " " + std::to_string(f.value) + "\n";
  }
  return out;
}

}  // namespace gpugate::transport
