// Structured logs: one JSON object per line on stderr, through spdlog. Build a line with
// LogLine("decision").Str("uid", ...).Int("micros", ...).Info().
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace gpugate::transport {

// Installs the JSON-lines logger as spdlog's default. Call once at start-up.
void InitJsonLogging();

class LogLine {
 public:
  explicit LogLine(std::string_view msg);
  LogLine& Str(std::string_view key, std::string_view value);
  LogLine& Int(std::string_view key, int64_t value);
  LogLine& Bool(std::string_view key, bool value);
  void Info();
  void Warn();
  void Error();

 private:
  std::string body_;  // JSON members without the enclosing braces
};

}  // namespace gpugate::transport
