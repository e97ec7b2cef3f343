// EventServer's counters in the Prometheus text format (gpugate_http_connections_*, the
// serving and blocking threads, the head parser's work, fairness).
#include <cstdint>
#include <string>

#include "transport/event_server.h"

namespace gpugate::transport {
namespace {

constexpr const char* kPhaseNames[] = {"handshake", "idle",    "headers", "body",
                                       "handling",  "writing", "linger"};

// One unlabelled sample with its family's HELP and TYPE lines.
struct Sample {
  const char* name;
  const char* type;  // "counter" or "gauge"
  const char* help;
  uint64_t value;
};

void Append(std::string& out, const Sample& s) {
  out += std::string("# HELP ") + s.name + " " + s.help + "\n# TYPE " + s.name + " " + s.type +
         "\n" + s.name + " " + std::to_string(s.value) + "\n";
}

}  // namespace

std::string EventServer::RenderMetrics() const {
  size_t open;
  {
    std::lock_guard lock(mu_);
    open = conns_.size();
  }
  std::string out;
  const Sample connections[] = {
      {"gpugate_http_connections_open", "gauge", "TLS connections open now.", open},
      {"gpugate_http_connections_accepted_total", "counter", "Connections accepted.",
       accepted_.load()},
      {"gpugate_http_connections_refused_total", "counter",
       "Connections closed on accept because maxConnections were open.", refused_.load()},
  };
  for (const Sample& s : connections) Append(out, s);
  out +=
      "# HELP gpugate_http_connections_timed_out_total Connections closed for outliving a "
      "phase's deadline, by phase.\n"
      "# TYPE gpugate_http_connections_timed_out_total counter\n";
  for (int p = 0; p < kPhases; ++p) {
    out += "gpugate_http_connections_timed_out_total{phase=\"" + std::string(kPhaseNames[p]) +
           "\"} " + std::to_string(timedOut_[p].load()) + "\n";
  }
  const WorkerStats blocking = blocking_.Stats();
  const Sample rest[] = {
      {"gpugate_http_request_buffer_bytes", "gauge",
       "Request bytes held in memory now, beyond each connection's first 16 KiB.", budget_.used()},
      {"gpugate_http_request_buffer_peak_bytes", "gauge",
       "The most request bytes ever held at once.", budget_.peak()},
      {"gpugate_http_request_buffer_budget_bytes", "gauge",
       "The most request bytes that may be held (server.bufferedRequestBytes).", budget_.limit()},
      {"gpugate_http_requests_over_budget_total", "counter",
       "Requests refused with 503 because holding them would have passed the request-byte "
       "budget.",
       overBudget_.load()},
      {"gpugate_http_turns_yielded_total", "counter",
       "Times a connection gave up its serving thread with work left, so others are served.",
       yields_.load()},
      {"gpugate_http_request_head_bytes_scanned_total", "counter",
       "Bytes of request heads the parser examined: each byte once for its line's end and once "
       "in its line, however the head arrived.",
       headBytesScanned_.load()},
      {"gpugate_http_server_threads", "gauge", "Threads serving connections.", threads_},
      {"gpugate_http_blocking_threads", "gauge",
       "Threads finishing answers that may block (quota charges).", blocking.threads},
      {"gpugate_http_blocking_busy", "gauge", "Blocking threads finishing an answer now.",
       blocking.busy},
      {"gpugate_http_blocking_queued", "gauge",
       "Answers waiting for a blocking thread (all blockingWorkers.maxThreads busy).",
       blocking.waiting},
      {"gpugate_http_blocking_handoffs_total", "counter",
       "Answers handed from a serving thread to a blocking thread (Response::blocking: a review "
       "that may wait on the quota ledger); each costs a wake-up and a task switch.",
       blocking.tasks},
      {"gpugate_http_blocking_stack_peak_bytes", "gauge",
       "Most of one blocking thread's stack ever used.", blocking.stackPeakBytes},
  };
  for (const Sample& s : rest) Append(out, s);
  return out;
}

}  // namespace gpugate::transport
