#include "transport/log.h"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include "common/strings.h"

namespace gpugate::transport {

void InitJsonLogging() {
  auto logger = spdlog::stderr_logger_mt("gpugate");
  // spdlog supplies time and level; LogLine supplies the remaining members, already escaped.
  logger->set_pattern(R"({"time":"%Y-%m-%dT%H:%M:%S.%fZ","level":"%l",%v})",
                      spdlog::pattern_time_type::utc);
  logger->flush_on(spdlog::level::info);
  spdlog::set_default_logger(std::move(logger));
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
