#pragma once

#include <string>
#include <string_view>

#include "common/result.h"

namespace gpugate {

struct HostPort {
  std::string host;  // IPv6 without brackets
  int port = 0;      // 0: any free port
};

// Parses "HOST:PORT" or "[IPV6]:PORT" (the same forms the config file's `listen` accepts).
// Port 0-65535; 0 picks a free port.
Result<HostPort> ParseHostPort(std::string_view text);

}  // namespace gpugate
