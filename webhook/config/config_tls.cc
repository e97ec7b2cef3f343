// The tls section: the serving pair, how often its files are re-read, and the client CA with the
// paths it leaves open.
#include <algorithm>
#include <string>
#include <vector>

#include "common/strings.h"
#include "config/config_sections.h"

namespace gpugate::config {
namespace {

// The paths tls.openPaths may list. The probes are always open; the admission routes never are.
constexpr std::string_view kOpenable[] = {"/metrics", "/quota", "/usage"};

Status ReadPath(const Cursor& value, std::string& out) {
  std::string path;
  if (auto st = value.ReadString(path); !st) return st;
  if (path.empty()) return value.Fail("must be a file path, got \"\"");
  out = std::move(path);
  return {};
}

Status ReadOpenPaths(const Cursor& value, std::vector<std::string>& out) {
  std::vector<std::string> paths;
  auto st = VisitList(value, [&](const Cursor& item) -> Status {
    std::string path;
    if (auto st = item.ReadString(path); !st) return st;
    if (std::find(std::begin(kOpenable), std::end(kOpenable), path) == std::end(kOpenable)) {
      return item.Fail(
          "must be /metrics, /quota or /usage (/healthz and /readyz are always open, /validate and "
          "/mutate never), got " +
          JsonQuote(path));
    }
    if (auto seen = std::find(paths.begin(), paths.end(), path); seen != paths.end()) {
      return item.Fail(JsonQuote(path) + " is already listed at " + value.path() + "[" +
                       std::to_string(seen - paths.begin()) + "]");
    }
    paths.push_back(std::move(path));
    return {};
  });
  if (!st) return st;
  out = std::move(paths);
  return {};
}

// Re-reading and hashing a few PEM files is cheap; below 100 ms it would only be busy-work.
Status ReadReloadInterval(const Cursor& value, std::chrono::milliseconds& out) {
  return value.ReadDuration(std::chrono::milliseconds(100), std::chrono::hours(1), out);
}

constexpr Field<TlsConfig> kTlsFields[] = {
    {"certFile", [](const Cursor& v, TlsConfig& t) { return ReadPath(v, t.certFile); }},
    {"keyFile", [](const Cursor& v, TlsConfig& t) { return ReadPath(v, t.keyFile); }},
    // "" is allowed: it spells out the default, no client certificates.
    {"clientCAFile", [](const Cursor& v, TlsConfig& t) { return v.ReadString(t.clientCAFile); }},
    {"openPaths", [](const Cursor& v, TlsConfig& t) { return ReadOpenPaths(v, t.openPaths); }},
    {"reloadInterval",
     [](const Cursor& v, TlsConfig& t) { return ReadReloadInterval(v, t.reloadInterval); }},
    {"reloadIntervalSeconds",
     [](const Cursor& v, TlsConfig& t) { return v.ReadSeconds(1, 3600, t.reloadInterval); }},
};

}  // namespace

Status ReadTls(const Cursor& value, Config& out) {
  if (auto st = ReadFields(value, kTlsFields, out.tls); !st) return st;
  return RefuseBothSpellings(value, "reloadInterval", "reloadIntervalSeconds");
}

}  // namespace gpugate::config
