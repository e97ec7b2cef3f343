#include "common/host_port.h"

#include <charconv>

namespace gpugate {

Result<HostPort> ParseHostPort(std::string_view text) {
  size_t colon = text.rfind(':');
  if (colon == std::string_view::npos)
    return Fail("must be HOST:PORT, got \"" + std::string(text) + "\"");
  std::string_view host = text.substr(0, colon);
  std::string_view port = text.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  } else if (host.find(':') != std::string_view::npos) {
    return Fail("IPv6 hosts must be in brackets, e.g. [::]:8443");
  }
  if (host.empty()) return Fail("host is missing; use 0.0.0.0:PORT for every interface");
  int value = -1;
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (port.empty() || ec != std::errc() || end != port.data() + port.size() || value < 0 ||
      value > 65535) {
    return Fail("port must be a number from 0 to 65535, got \"" + std::string(port) + "\"");
  }
  return HostPort{std::string(host), value};
}

}  // namespace gpugate
