#include "config/config.h"

#include <arpa/inet.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/strings.h"
#include "config/config_sections.h"
#include "config/k8s_names.h"
#include "config/yaml_cursor.h"

namespace gpugate::config {
namespace {

bool IsIpAddress(int family, const std::string& host) {
  unsigned char buf[sizeof(in6_addr)];
  return inet_pton(family, host.c_str(), buf) == 1;
}

// Why `listen` is not a usable HOST:PORT, or "" when it is.
std::string ListenProblem(std::string_view listen) {
  size_t colon = listen.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return "must be HOST:PORT, e.g. 0.0.0.0:8443";
  std::string host(listen.substr(0, colon));
  std::string_view port = listen.substr(colon + 1);
  if (port.empty() || port.size() > 5 ||
      port.find_first_not_of("0123456789") != std::string_view::npos ||
      std::stoi(std::string(port)) > 65535) {
    return "port must be a number from 0 to 65535";
  }
  if (host.front() == '[' && host.back() == ']' && host.size() > 2) {
    return IsIpAddress(AF_INET6, host.substr(1, host.size() - 2)) ? "" : "not an IPv6 address";
  }
  if (host.find(':') != std::string::npos) return "an IPv6 host needs brackets, e.g. [::]:8443";
  if (host.find_first_not_of("0123456789.") == std::string::npos) {
    return IsIpAddress(AF_INET, host) ? "" : "not an IPv4 address";
  }
  std::string lower = host;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return IsDnsSubdomain(lower) ? "" : "host must be an IP address or a DNS name";
}

Status ReadListen(const Cursor& value, Config& out) {
  std::string listen;
  if (auto st = value.ReadString(listen); !st) return st;
  if (std::string problem = ListenProblem(listen); !problem.empty()) {
    return value.Fail(problem + ", got " + JsonQuote(listen));
  }
  out.listen = std::move(listen);
  return {};
}

// Up to 5 minutes: past the pod's terminationGracePeriodSeconds (30 s by default) the kubelet
// kills the process anyway.
Status ReadShutdownDelay(const Cursor& value, Config& out) {
  return value.ReadDuration(std::chrono::milliseconds(0), std::chrono::minutes(5),
                            out.shutdownDelay);
}

Status ReadShutdownDelaySeconds(const Cursor& value, Config& out) {
  return value.ReadSeconds(0, 300, out.shutdownDelay);
}

// The top-level keys, in the order messages list them.
constexpr Field<Config> kTopLevelFields[] = {
    {"listen", ReadListen},
    {"shutdownDelay", ReadShutdownDelay},
    {"shutdownDelaySeconds", ReadShutdownDelaySeconds},
    {"server", ReadServer},
    {"tls", ReadTls},
    {"exemptNamespaces", ReadExemptNamespaces},
    {"resources", ReadResources},
    {"mutation", ReadMutation},
    {"security", ReadSecurity},
    {"modes", ReadModes},
    {"cluster", ReadCluster},
    {"audit", ReadAudit},
    // Read by ReadLaterSections once `resources` (and for usage, `quota`) is known, wherever
    // they appear in the file.
    {"quota", [](const Cursor&, Config&) { return Status{}; }},
    {"usage", [](const Cursor&, Config&) { return Status{}; }},
};

// The sections that refer to others, read after every other section is in `config`.
Status ReadLaterSections(const Cursor& root, Config& config) {
  for (auto it = root.node().begin(); it != root.node().end(); ++it) {
    if (it->first.Scalar() != "quota") continue;
    Cursor quota = root.Entry("quota", it->first, it->second);
    if (auto st = ReadQuota(quota, config); !st) return st;
    if (config.cluster.enabled && !config.quota.stateFile.empty()) {
      return quota.Fail(
          "stateFile is the local ledger's file and is not used when cluster.enabled is true; "
          "remove it");
    }
  }
  // usage names quota's figures and flavors.
  for (auto it = root.node().begin(); it != root.node().end(); ++it) {
    if (it->first.Scalar() != "usage") continue;
    if (auto st = ReadUsage(root.Entry("usage", it->first, it->second), config); !st) return st;
  }
  return {};
}

// May throw YAML::Exception from the parser; ParseConfig catches it.
Result<Config> ParseDocuments(std::string_view yaml, std::string_view source) {
  std::vector<YAML::Node> docs = YAML::LoadAll(std::string(yaml));
  // Empty documents (a stray "---", a file of comments) carry no settings.
  std::erase_if(docs, [](const YAML::Node& doc) { return doc.IsNull(); });
  Config config;
  if (docs.empty()) return config;
  if (docs.size() > 1) return Cursor(docs[1], source).Fail("only one YAML document is allowed");
  Cursor root(docs[0], source);
  if (!root.node().IsMap()) {
    return root.Fail("the top level must be a map of settings, got " + root.Describe());
  }
  if (auto st = ReadFields(root, kTopLevelFields, config); !st) return std::unexpected(st.error());
  if (auto st = RefuseBothSpellings(root, "shutdownDelay", "shutdownDelaySeconds"); !st) {
    return std::unexpected(st.error());
  }
  if (auto st = ReadLaterSections(root, config); !st) return std::unexpected(st.error());
  return config;
}

std::string Located(std::string_view source, const YAML::Mark& mark, std::string_view msg) {
  std::string out(source);
  if (mark.line >= 0) out += ":" + std::to_string(mark.line + 1);
  return out + ": " + std::string(msg);
}

}  // namespace

Result<Config> ParseConfig(std::string_view yaml, std::string_view source) {
  try {
    return ParseDocuments(yaml, source);
  } catch (const YAML::Exception& e) {
    return Fail(Located(source, e.mark, e.msg));
  } catch (const std::exception& e) {
    return Fail(std::string(source) + ": " + e.what());
  }
}

Result<Config> LoadConfigFile(const std::string& path) {
  auto cannotRead = [&] { return Fail(path + ": cannot read: " + std::strerror(errno)); };
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), std::fclose);
  if (!file) return cannotRead();
  std::string text;
  char buf[8192];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, file.get())) > 0) text.append(buf, n);
  if (std::ferror(file.get())) return cannotRead();
  return ParseConfig(text, path);
}

}  // namespace gpugate::config
