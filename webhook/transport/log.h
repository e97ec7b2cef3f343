// Structured logs: one JSON object per line on stderr, {"time":...,"level":...,"msg":...,...}.
// Build a line with LogLine("decision").Str("uid", ...).Int("micros", ...).Info().
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace gpugate::transport {

// Sends lines to stderr in batches from now on (transport/batched_sink.h): warnings and errors at
// once with what is before them, info lines within 50 ms, and every line by FlushLogs or the
// process's normal exit. Call once at start-up, before other threads log, with the signals the
// process waits for already blocked (it starts a thread). Before it, each line is written to
// stderr at once.
void InitJsonLogging();

// Writes out every line logged so far. Thread-safe.
void FlushLogs();

// The log's counters in the Prometheus text format (gpugate_log_lines_total,
// gpugate_log_writes_total, gpugate_log_lines_dropped_total); zeros before InitJsonLogging.
std::string RenderLogMetrics();

// Keys are the program's own identifiers, written as they are; values are escaped. A line
// borrows its thread's buffer and gives it back when destroyed, so logging a line allocates
// nothing once the thread has logged one as long (a line built while another is alive on the
// same thread gets a buffer of its own).
class LogLine {
 public:
  explicit LogLine(std::string_view msg);
  ~LogLine();
  LogLine(const LogLine&) = delete;
  LogLine& operator=(const LogLine&) = delete;
  LogLine& Str(std::string_view key, std::string_view value);
  LogLine& Int(std::string_view key, int64_t value);
  LogLine& Bool(std::string_view key, bool value);
  void Info();
  void Warn();
  void Error();

 private:
  static constexpr size_t kReserve = 512;  // a decision's line, with room: one allocation
  void AppendKey(std::string_view key);

  std::string body_;  // JSON members without the enclosing braces
};

}  // namespace gpugate::transport
