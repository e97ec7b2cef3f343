// EventServer's counters in the Prometheus text format (gpugate_http_connections_*, the
// serving and blocking threads, the head parser's work, fairness).
#include <string>

#include "transport/event_server.h"

namespace gpugate::transport {
namespace {

constexpr const char* kPhaseNames[] = {"handshake", "idle",    "headers", "body",
                                       "handling",  "writing", "linger"};

}  // namespace

std::string EventServer::RenderMetrics() const {
  size_t open;
  {
    std::lock_guard lock(mu_);
    open = conns_.size();
  }
  std::string out =
      "# HELP gpugate_http_connections_open TLS connections open now.\n"
      "# TYPE gpugate_http_connections_open gauge\n"
      "gpugate_http_connections_open " +
      std::to_string(open) +
      "\n# HELP gpugate_http_connections_accepted_total Connections accepted.\n"
      "# TYPE gpugate_http_connections_accepted_total counter\n"
      "gpugate_http_connections_accepted_total " +
      std::to_string(accepted_.load()) +
      "\n# HELP gpugate_http_connections_refused_total Connections closed on accept because "
      "maxConnections were open.\n"
      "# TYPE gpugate_http_connections_refused_total counter\n"
      "gpugate_http_connections_refused_total " +
      std::to_string(refused_.load()) +
      "\n# HELP gpugate_http_connections_timed_out_total Connections closed for outliving a "
      "phase's deadline, by phase.\n"
      "# TYPE gpugate_http_connections_timed_out_total counter\n";
  for (int p = 0; p < kPhases; ++p) {
    out += "gpugate_http_connections_timed_out_total{phase=\"" + std::string(kPhaseNames[p]) +
           "\"} " + std::to_string(timedOut_[p].load()) + "\n";
  }
  out +=
      "# HELP gpugate_http_request_buffer_bytes Request bytes held in memory now, beyond each "
      "connection's first 16 KiB.\n"
      "# TYPE gpugate_http_request_buffer_bytes gauge\n"
      "gpugate_http_request_buffer_bytes " +
      std::to_string(budget_.used()) +
      "\n# HELP gpugate_http_request_buffer_peak_bytes The most request bytes ever held at once.\n"
      "# TYPE gpugate_http_request_buffer_peak_bytes gauge\n"
      "gpugate_http_request_buffer_peak_bytes " +
      std::to_string(budget_.peak()) +
      "\n# HELP gpugate_http_request_buffer_budget_bytes The most request bytes that may be held "
      "(server.bufferedRequestBytes).\n"
      "# TYPE gpugate_http_request_buffer_budget_bytes gauge\n"
      "gpugate_http_request_buffer_budget_bytes " +
      std::to_string(budget_.limit()) +
      "\n# HELP gpugate_http_requests_over_budget_total Requests refused with 503 because holding "
      "them would have passed the request-byte budget.\n"
      "# TYPE gpugate_http_requests_over_budget_total counter\n"
      "gpugate_http_requests_over_budget_total " +
      std::to_string(overBudget_.load()) + "\n";
  out +=
      "# HELP gpugate_http_turns_yielded_total Times a connection gave up its serving thread "
      "with work left, so others are served.\n"
      "# TYPE gpugate_http_turns_yielded_total counter\n"
      "gpugate_http_turns_yielded_total " +
      std::to_string(yields_.load()) + "\n";
  out +=
      "# HELP gpugate_http_request_head_bytes_scanned_total Bytes of request heads the parser "
      "examined: each byte once for its line's end and once in its line, however the head "
      "arrived.\n"
      "# TYPE gpugate_http_request_head_bytes_scanned_total counter\n"
      "gpugate_http_request_head_bytes_scanned_total " +
      std::to_string(headBytesScanned_.load()) + "\n";
  WorkerStats blocking = blocking_.Stats();
  out +=
      "# HELP gpugate_http_server_threads Threads serving connections.\n"
      "# TYPE gpugate_http_server_threads gauge\n"
      "gpugate_http_server_threads " +
      std::to_string(threads_) +
      "\n# HELP gpugate_http_blocking_threads Threads finishing answers that may block "
      "(quota charges).\n"
      "# TYPE gpugate_http_blocking_threads gauge\n"
      "gpugate_http_blocking_threads " +
      std::to_string(blocking.threads) +
      "\n# HELP gpugate_http_blocking_busy Blocking threads finishing an answer now.\n"
      "# TYPE gpugate_http_blocking_busy gauge\n"
      "gpugate_http_blocking_busy " +
      std::to_string(blocking.busy) +
      "\n# HELP gpugate_http_blocking_queued Answers waiting for a blocking thread (all "
      "blockingWorkers.maxThreads busy).\n"
      "# TYPE gpugate_http_blocking_queued gauge\n"
      "gpugate_http_blocking_queued " +
      std::to_string(blocking.waiting) +
      "\n# HELP gpugate_http_blocking_stack_peak_bytes Most of one blocking thread's stack ever "
      "used.\n"
      "# TYPE gpugate_http_blocking_stack_peak_bytes gauge\n"
      "gpugate_http_blocking_stack_peak_bytes " +
      std::to_string(blocking.stackPeakBytes) + "\n";
  return out;
}

}  // namespace gpugate::transport
