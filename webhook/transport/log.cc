#include "transport/log.h"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <ctime>
#include <memory>

#include "common/strings.h"
#include "transport/batched_sink.h"

namespace gpugate::transport {
namespace {

// The JSON log's sink; set once by InitJsonLogging, before other threads log.
std::unique_ptr<BatchedSink>& JsonSink() {
  static std::unique_ptr<BatchedSink> sink;
  return sink;
}

enum class Level { kInfo, kWarn, kError };

constexpr size_t kKeepLineBytes = 16 << 10;

// RFC 3339 in UTC with microseconds, "2026-11-28T03:04:05.123456Z", appended to `out`. The part
// to the second is formatted once a second per thread.
void AppendUtcNow(std::string& out) {
  const int64_t micros = std::chrono::duration_cast<std::chrono::microseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  const int64_t seconds = micros / 1'000'000;
  thread_local int64_t formattedSecond = -1;
  thread_local char toTheSecond[24];  // "2026-11-28T03:04:05"
  if (seconds != formattedSecond) {
    const time_t t = static_cast<time_t>(seconds);
    tm utc{};
    gmtime_r(&t, &utc);
    strftime(toTheSecond, sizeof toTheSecond, "%Y-%m-%dT%H:%M:%S", &utc);
    formattedSecond = seconds;
  }
  out += toTheSecond;
  char fraction[9] = {'.', 0, 0, 0, 0, 0, 0, 'Z', 0};
  for (int i = 6, rest = static_cast<int>(micros % 1'000'000); i >= 1; --i, rest /= 10) {
    fraction[i] = static_cast<char>('0' + rest % 10);
  }
  out.append(fraction, 8);
}

// Writes one line: {"time":...,"level":...,<members>}. Before InitJsonLogging (the CLI's
// commands) it goes to stderr at once; after, through the batched sink, warnings and errors
// at once with what is before them.
void Emit(Level level, std::string_view members) {
  thread_local std::string line;
  line.clear();
  line += R"({"time":")";
  AppendUtcNow(line);
  line += level == Level::kInfo   ? R"(","level":"info",)"
          : level == Level::kWarn ? R"(","level":"warning",)"
                                  : R"(","level":"error",)";
  line += members;
  line += "}\n";
  if (BatchedSink* sink = JsonSink().get()) {
    sink->Add(line, level != Level::kInfo);
  } else {
    for (std::string_view rest = line; !rest.empty();) {
      ssize_t n = ::write(STDERR_FILENO, rest.data(), rest.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      rest.remove_prefix(static_cast<size_t>(n));
    }
  }
  // A rare long line (an error quoting a large body) does not stay with the thread.
  if (line.capacity() > kKeepLineBytes) std::string().swap(line);
}

// The buffer a thread's lines borrow: empty while a line has it.
std::string& SpareLineBody() {
  thread_local std::string spare;
  return spare;
}

}  // namespace

void InitJsonLogging() { JsonSink() = std::make_unique<BatchedSink>(BatchedSink::Options{}); }

void FlushLogs() {
  if (BatchedSink* sink = JsonSink().get()) sink->Flush();
}

std::string RenderLogMetrics() {
  const BatchedSink::Stats s = JsonSink() ? JsonSink()->stats() : BatchedSink::Stats{};
  return "# HELP gpugate_log_lines_total Log lines written or dropped.\n"
         "# TYPE gpugate_log_lines_total counter\n"
         "gpugate_log_lines_total " +
         std::to_string(s.lines) +
         "\n# HELP gpugate_log_writes_total write(2) calls that carried log lines (many lines "
         "each).\n"
         "# TYPE gpugate_log_writes_total counter\n"
         "gpugate_log_writes_total " +
         std::to_string(s.writes) +
         "\n# HELP gpugate_log_lines_dropped_total Log lines lost because the log's descriptor "
         "refused them.\n"
         "# TYPE gpugate_log_lines_dropped_total counter\n"
         "gpugate_log_lines_dropped_total " +
         std::to_string(s.droppedLines) + "\n";
}

LogLine::LogLine(std::string_view msg) : body_(std::move(SpareLineBody())) {
  body_.clear();
  body_.reserve(kReserve);
  body_ += R"("msg":)";
  AppendJsonString(body_, msg);
}

LogLine::~LogLine() {
  // A rare long line's buffer (an error quoting a large body) does not stay with the thread.
  std::string& spare = SpareLineBody();
  if (body_.capacity() <= kKeepLineBytes && body_.capacity() > spare.capacity()) {
    spare = std::move(body_);
  }
}

LogLine& LogLine::Str(std::string_view key, std::string_view value) {
  AppendKey(key);
  AppendJsonString(body_, value);
  return *this;
}

LogLine& LogLine::Int(std::string_view key, int64_t value) {
  AppendKey(key);
  body_ += std::to_string(value);
  return *this;
}

LogLine& LogLine::Bool(std::string_view key, bool value) {
  AppendKey(key);
  body_ += value ? "true" : "false";
  return *this;
}

void LogLine::AppendKey(std::string_view key) { AppendBetween(body_, ",\"", key, "\":"); }

void LogLine::Info() { Emit(Level::kInfo, body_); }
void LogLine::Warn() { Emit(Level::kWarn, body_); }
void LogLine::Error() { Emit(Level::kError, body_); }

}  // namespace gpugate::transport
