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
constexpr std::string_view kOpenable[] = {"/metrics", "/quota"};

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
          "must be /metrics or /quota (/healthz and /readyz are always open, /validate and "
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

Status ReadReloadInterval(const Cursor& value, int64_t& out) {
  int64_t seconds = 0;
  if (auto st = value.ReadPositiveInteger(seconds); !st) return st;
  if (seconds > 3600) return value.FailExpected("a number of seconds from 1 to 3600");
  out = seconds;
  return {};
}

constexpr Field<TlsConfig> kTlsFields[] = {
    {"certFile", [](const Cursor& v, TlsConfig& t) { return ReadPath(v, t.certFile); }},
    {"keyFile", [](const Cursor& v, TlsConfig& t) { return ReadPath(v, t.keyFile); }},
    // "" is allowed: it spells out the default, no client certificates.
    {"clientCAFile", [](const Cursor& v, TlsConfig& t) { return v.ReadString(t.clientCAFile); }},
    {"openPaths", [](const Cursor& v, TlsConfig& t) { return ReadOpenPaths(v, t.openPaths); }},
    {"reloadIntervalSeconds",
     [](const Cursor& v, TlsConfig& t) { return ReadReloadInterval(v, t.reloadIntervalSeconds); }},
};

}  // namespace

Status ReadTls(const Cursor& value, Config& out) { return ReadFields(value, kTlsFields, out.tls); }

}  // namespace gpugate::config
