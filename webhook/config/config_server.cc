// The server section: the HTTPS server's deadlines and its request-byte budget
// (transport/tuning.h has what each one bounds and its default; docs/configuration.md, "server").
#include "config/config_sections.h"
#include "quantity/quantity.h"

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

// A byte count, plain ("67108864") or as a Kubernetes quantity ("64Mi"), from 16Mi (a whole
// 8 MiB body must fit in the three quarters large requests may hold) to 64Gi.
Status ReadBudget(const Cursor& value, std::optional<size_t>& out) {
  constexpr int64_t kMin = int64_t{16} << 20;
  constexpr int64_t kMax = int64_t{64} << 30;
  constexpr std::string_view kWhat = "a byte size from 16Mi to 64Gi, e.g. \"64Mi\"";
  std::string text;
  if (!value.node().IsScalar() || !value.ReadString(text)) return value.FailExpected(kWhat);
  auto q = ParseQuantity(text);
  std::optional<int64_t> bytes = q ? q->ToInt64() : std::nullopt;
  if (!bytes || *bytes < kMin || *bytes > kMax) return value.FailExpected(kWhat);
  out = static_cast<size_t>(*bytes);
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
    {"bufferedRequestBytes",
     [](const Cursor& v, ServerConfig& s) { return ReadBudget(v, s.bufferedRequestBytes); }},
    {"keepAliveIdle",
     [](const Cursor& v, ServerConfig& s) { return ReadDeadline(v, s.keepAliveIdle); }},
};

}  // namespace

Status ReadServer(const Cursor& value, Config& out) {
  return ReadFields(value, kServerFields, out.server);
}

}  // namespace gpugate::config
