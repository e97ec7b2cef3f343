// The server section: the HTTPS server's deadlines (transport/tuning.h has what each one bounds
// and its default; docs/configuration.md, "server").
#include "config/config_sections.h"

namespace gpugate::config {
namespace {

using std::chrono::milliseconds;

// From 100 ms: an honest TLS handshake across regions takes a round trip or two (tens of
// milliseconds each), so anything shorter would cut real callers off; it is more likely "10ms"
// written for "10s". Up to an hour: longer would let a peer hold a connection without purpose.
Status ReadDeadline(const Cursor& value, std::optional<milliseconds>& out) {
  milliseconds d{0};
  if (auto st = value.ReadDuration(milliseconds(100), std::chrono::hours(1), d); !st) return st;
  out = d;
  return {};
}

constexpr Field<ServerConfig> kServerFields[] = {
    {"handshakeTimeout",
     [](const Cursor& v, ServerConfig& s) { return ReadDeadline(v, s.handshakeTimeout); }},
    {"headerTimeout",
     [](const Cursor& v, ServerConfig& s) { return ReadDeadline(v, s.headerTimeout); }},
    {"bodyTimeout",
     [](const Cursor& v, ServerConfig& s) { return ReadDeadline(v, s.bodyTimeout); }},
    {"writeTimeout",
     [](const Cursor& v, ServerConfig& s) { return ReadDeadline(v, s.writeTimeout); }},
    {"handlingTimeout",
     [](const Cursor& v, ServerConfig& s) { return ReadDeadline(v, s.handlingTimeout); }},
    {"keepAliveIdle",
     [](const Cursor& v, ServerConfig& s) { return ReadDeadline(v, s.keepAliveIdle); }},
};

}  // namespace

Status ReadServer(const Cursor& value, Config& out) {
  return ReadFields(value, kServerFields, out.server);
}

}  // namespace gpugate::config
