#pragma once

#include <string>
#include <string_view>

#include "common/result.h"

namespace gpugate {

struct HostPort {
  std::string host;  // IPv6 without brackets
  int port = 0;      // 0: any free port
};

// Parses "HOST:PORT", "[IPV6]:PORT" or ":PORT" (all interfaces). Port 0-65535.
Result<HostPort> ParseHostPort(std::string_view text);

}  // namespace gpugate
