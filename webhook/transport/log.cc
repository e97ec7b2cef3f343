#include "transport/log.h"

#include <spdlog/spdlog.h>

#include <memory>

#include "common/strings.h"
#include "transport/batched_sink.h"

namespace gpugate::transport {
namespace {

// The JSON logger's sink, for its counters; set once by InitJsonLogging.
std::shared_ptr<BatchedSink>& JsonSink() {
  static std::shared_ptr<BatchedSink> sink;
  return sink;
}

}  // namespace

void InitJsonLogging() {
  auto sink = std::make_shared<BatchedSink>(BatchedSink::Options{});
  auto logger = std::make_shared<spdlog::logger>("gpugate", sink);
  // spdlog supplies time and level; LogLine supplies the remaining members, already escaped.
  logger->set_pattern(R"({"time":"%Y-%m-%dT%H:%M:%S.%fZ","level":"%l",%v})",
                      spdlog::pattern_time_type::utc);
  // A warning may come just before the process ends abnormally: it goes out at once.
  logger->flush_on(spdlog::level::warn);
  spdlog::set_default_logger(std::move(logger));
  JsonSink() = std::move(sink);
}

void FlushLogs() { spdlog::default_logger_raw()->flush(); }

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

LogLine::LogLine(std::string_view msg) {
  body_ += R"("msg":)";
  AppendJsonString(body_, msg);
}

LogLine& LogLine::Str(std::string_view key, std::string_view value) {
  body_ += ',';
  AppendJsonString(body_, key);
  body_ += ':';
  AppendJsonString(body_, value);
  return *this;
}

LogLine& LogLine::Int(std::string_view key, int64_t value) {
  body_ += ',';
  AppendJsonString(body_, key);
  body_ += ':';
  body_ += std::to_string(value);
  return *this;
}

LogLine& LogLine::Bool(std::string_view key, bool value) {
  body_ += ',';
  AppendJsonString(body_, key);
  body_ += value ? ":true" : ":false";
  return *this;
}

void LogLine::Info() { spdlog::default_logger_raw()->log(spdlog::level::info, body_); }
void LogLine::Warn() { spdlog::default_logger_raw()->log(spdlog::level::warn, body_); }
void LogLine::Error() { spdlog::default_logger_raw()->log(spdlog::level::err, body_); }

}  // namespace gpugate::transport
