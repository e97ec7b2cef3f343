// A kubeconfig tree -> KubeConfig, the way kubectl reads it: the named or current context, its
// cluster and user by name, `*-data` fields before their file forms, relative file paths against
// the kubeconfig's directory. Messages: "<file>: <field path>: <reason>".
#include "cluster/kubeconfig_reader.h"

#include <openssl/err.h>

#include <charconv>
#include <filesystem>
#include <span>
#include <tuple>

#include "cluster/tls_material.h"
#include "common/base64.h"
#include "common/files.h"

namespace gpugate::cluster {
namespace {

// yaml-cpp throws when asked the type of a missing entry (a const operator[] miss).
bool IsMap(const YAML::Node& node) { return node.IsDefined() && node.IsMap(); }
bool IsScalar(const YAML::Node& node) { return node.IsDefined() && node.IsScalar(); }

struct Unsupported {
  const char* key;
  const char* reason;
};

constexpr char kUseSupported[] = "; use a token, tokenFile or client certificate";
constexpr Unsupported kUnsupportedCluster[] = {
    {"proxy-url", "proxies are not supported"},
};
constexpr Unsupported kUnsupportedUser[] = {
    {"exec", "credential plugins (exec) are not supported"},
    {"auth-provider", "auth-provider plugins are not supported"},
    {"username", "basic authentication is not supported"},
    {"password", "basic authentication is not supported"},
    {"as", "impersonation is not supported"},
    {"as-uid", "impersonation is not supported"},
    {"as-groups", "impersonation is not supported"},
    {"as-user-extra", "impersonation is not supported"},
};

// A map node and its field path ("users[0].user").
struct Entry {
  YAML::Node node;
  std::string where;
};

// Text from a `*-data` field (base64) or its file form, and which field it came from.
struct Material {
  std::string text;
  std::string field;
};

class Reader {
 public:
  Reader(const std::string& path, const YAML::Node& root)
      : path_(path), dir_(std::filesystem::path(path).parent_path()), root_(root) {}

  Result<KubeConfig> Read(const std::string& context) const;

 private:
  std::unexpected<Error> FailAt(const std::string& field, const std::string& reason) const {
    return Fail(path_ + ": " + field + ": " + reason);
  }
  static std::string Join(const std::string& where, const char* key) {
    return where.empty() ? key : where + "." + key;
  }

  Result<std::string> String(const Entry& e, const char* key) const;
  Result<Entry> Find(const char* list, const char* item, const std::string& name) const;
  Result<Material> DataOrFile(const Entry& e, const char* dataKey, const char* fileKey) const;
  Status Reject(const Entry& e, std::span<const Unsupported> fields, const char* hint) const;
  Status ReadCluster(const Entry& cluster, KubeConfig& out) const;
  Status ReadUser(const Entry& user, KubeConfig& out) const;
  Status ReadClientCertificate(const Entry& user, KubeConfig& out) const;

  std::string path_;
  std::filesystem::path dir_;
  YAML::Node root_;
};

Result<std::string> Reader::String(const Entry& e, const char* key) const {
  const YAML::Node value = e.node[key];
  if (!value.IsDefined() || value.IsNull()) return std::string();
  if (!value.IsScalar()) return FailAt(Join(e.where, key), "must be a string");
  return value.Scalar();
}

Result<Entry> Reader::Find(const char* list, const char* item, const std::string& name) const {
  const YAML::Node entries = root_[list];
  std::string names;
  if (entries.IsDefined() && entries.IsSequence()) {
    for (size_t i = 0; i < entries.size(); ++i) {
      const YAML::Node entry = entries[i];
      if (!IsMap(entry) || !IsScalar(entry["name"])) continue;
      std::string entryName = entry["name"].Scalar();
      if (entryName != name) {
        names += (names.empty() ? "" : ", ") + entryName;
        continue;
      }
      std::string where = std::string(list) + "[" + std::to_string(i) + "]." + item;
      if (!IsMap(entry[item])) return FailAt(where, "must be a map");
      return Entry{entry[item], where};
    }
  }
  return FailAt(list, "no entry named \"" + name + "\"" +
                          (names.empty() ? "" : " (there are: " + names + ")"));
}

Result<Material> Reader::DataOrFile(const Entry& e, const char* dataKey,
                                    const char* fileKey) const {
  auto data = String(e, dataKey);
  if (!data) return std::unexpected(data.error());
  if (!data->empty()) {
    std::string field = Join(e.where, dataKey);
    auto decoded = Base64Decode(*data);
    if (!decoded) return FailAt(field, decoded.error().message);
    return Material{std::move(*decoded), field};
  }
  auto file = String(e, fileKey);
  if (!file) return std::unexpected(file.error());
  if (file->empty()) return Material{};
  std::string field = Join(e.where, fileKey);
  auto text = ReadFile((dir_ / *file).string());  // an absolute *file replaces dir_
  if (!text) return FailAt(field, text.error().message);
  return Material{std::move(*text), field};
}

Status Reader::Reject(const Entry& e, std::span<const Unsupported> fields, const char* hint) const {
  for (const auto& f : fields) {
    const YAML::Node value = e.node[f.key];
    if (value.IsDefined() && !value.IsNull()) {
      return FailAt(Join(e.where, f.key), std::string(f.reason) + hint);
    }
  }
  return {};
}

Status Reader::ReadCluster(const Entry& cluster, KubeConfig& out) const {
  if (auto st = Reject(cluster, kUnsupportedCluster, ""); !st) return st;
  auto server = String(cluster, "server");
  if (!server) return std::unexpected(server.error());
  if (server->empty()) return FailAt(Join(cluster.where, "server"), "missing");
  auto hostPort = ParseServerUrl(*server);
  if (!hostPort) return FailAt(Join(cluster.where, "server"), hostPort.error().message);
  std::tie(out.host, out.port) = std::move(*hostPort);
  auto ca = DataOrFile(cluster, "certificate-authority-data", "certificate-authority");
  if (!ca) return std::unexpected(ca.error());
  if (!ca->text.empty()) {
    if (auto certs = ParseCertificates(ca->text); !certs) {
      return FailAt(ca->field, certs.error().message);
    }
    out.caPem = std::move(ca->text);
  }
  const YAML::Node insecure = cluster.node["insecure-skip-tls-verify"];
  if (insecure.IsDefined() && !insecure.IsNull() &&
      !YAML::convert<bool>::decode(insecure, out.insecureSkipVerify)) {
    return FailAt(Join(cluster.where, "insecure-skip-tls-verify"), "must be true or false");
  }
  if (out.insecureSkipVerify && !out.caPem.empty()) {
    // kubectl refuses this too: the CA would silently not be checked.
    return FailAt(Join(cluster.where, "insecure-skip-tls-verify"),
                  "cannot be true together with a certificate authority");
  }
  auto serverName = String(cluster, "tls-server-name");
  if (!serverName) return std::unexpected(serverName.error());
  out.tlsServerName = std::move(*serverName);
  return {};
}

Status Reader::ReadClientCertificate(const Entry& user, KubeConfig& out) const {
  auto cert = DataOrFile(user, "client-certificate-data", "client-certificate");
  if (!cert) return std::unexpected(cert.error());
  auto key = DataOrFile(user, "client-key-data", "client-key");
  if (!key) return std::unexpected(key.error());
  if (cert->text.empty() != key->text.empty()) {
    return FailAt(user.where, "client-certificate and client-key go together; only one is set");
  }
  if (cert->text.empty()) return {};
  auto certs = ParseCertificates(cert->text);
  if (!certs) return FailAt(cert->field, certs.error().message);
  auto pkey = ParsePrivateKey(key->text);
  if (!pkey) return FailAt(key->field, pkey.error().message);
  if (X509_check_private_key(certs->front().get(), pkey->get()) != 1) {
    ERR_clear_error();
    return FailAt(key->field, "does not match the client certificate");
  }
  out.clientCertPem = std::move(cert->text);
  out.clientKeyPem = std::move(key->text);
  return {};
}

Status Reader::ReadUser(const Entry& user, KubeConfig& out) const {
  if (auto st = Reject(user, kUnsupportedUser, kUseSupported); !st) return st;
  auto token = String(user, "token");
  if (!token) return std::unexpected(token.error());
  out.token = std::move(*token);
  auto tokenFile = String(user, "tokenFile");
  if (!tokenFile) return std::unexpected(tokenFile.error());
  if (!tokenFile->empty()) {
    out.tokenFile = (dir_ / *tokenFile).string();
    // Read now only to fail early; the client re-reads it when it changes.
    if (auto text = ReadFile(out.tokenFile); !text) {
      return FailAt(Join(user.where, "tokenFile"), text.error().message);
    }
  }
  return ReadClientCertificate(user, out);
}

Result<KubeConfig> Reader::Read(const std::string& context) const {
  if (!IsMap(root_)) return Fail(path_ + ": not a kubeconfig (expected a YAML map)");
  std::string name = context;
  if (name.empty()) {
    auto current = String(Entry{root_, ""}, "current-context");
    if (!current) return std::unexpected(current.error());
    name = std::move(*current);
  }
  if (name.empty()) return Fail(path_ + ": no current-context is set and no context was named");
  auto ctx = Find("contexts", "context", name);
  if (!ctx) return std::unexpected(ctx.error());
  auto clusterName = String(*ctx, "cluster");
  if (!clusterName) return std::unexpected(clusterName.error());
  if (clusterName->empty()) return FailAt(Join(ctx->where, "cluster"), "missing");
  auto userName = String(*ctx, "user");
  if (!userName) return std::unexpected(userName.error());

  KubeConfig out;
  auto cluster = Find("clusters", "cluster", *clusterName);
  if (!cluster) return std::unexpected(cluster.error());
  if (auto st = ReadCluster(*cluster, out); !st) return std::unexpected(st.error());
  if (userName->empty()) return out;  // no credentials: anonymous
  auto user = Find("users", "user", *userName);
  if (!user) return std::unexpected(user.error());
  if (auto st = ReadUser(*user, out); !st) return std::unexpected(st.error());
  return out;
}

}  // namespace

std::optional<int> ParsePort(std::string_view text) {
  int port = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), port);
  if (ec != std::errc() || end != text.data() + text.size() || port < 1 || port > 65535) {
    return std::nullopt;
  }
  return port;
}

Result<std::pair<std::string, int>> ParseServerUrl(std::string_view url) {
  constexpr std::string_view kScheme = "https://";
  if (url.starts_with("http://")) return Fail("plain http is not supported; use https");
  if (!url.starts_with(kScheme)) {
    return Fail("must be an https:// URL, got \"" + std::string(url) + "\"");
  }
  std::string_view rest = url.substr(kScheme.size());
  size_t slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  if (slash != std::string_view::npos && rest.size() > slash + 1) {
    return Fail("a path after the host (\"" + std::string(rest.substr(slash)) +
                "\") is not supported");
  }
  if (authority.find('@') != std::string_view::npos) return Fail("user info is not supported");
  std::string_view host = authority;
  std::optional<std::string_view> portText;
  if (authority.starts_with('[')) {
    size_t close = authority.find(']');
    if (close == std::string_view::npos) return Fail("unterminated [IPv6] address");
    host = authority.substr(1, close - 1);
    std::string_view tail = authority.substr(close + 1);
    if (!tail.empty() && tail.front() != ':') return Fail("unexpected text after ]");
    if (!tail.empty()) portText = tail.substr(1);
  } else if (size_t colon = authority.rfind(':'); colon != std::string_view::npos) {
    if (authority.find(':') != colon) return Fail("an IPv6 address must be in brackets");
    host = authority.substr(0, colon);
    portText = authority.substr(colon + 1);
  }
  if (host.empty()) return Fail("missing host");
  int port = 443;
  if (portText) {
    auto parsed = ParsePort(*portText);
    if (!parsed) return Fail("bad port \"" + std::string(*portText) + "\"");
    port = *parsed;
  }
  return std::pair{std::string(host), port};
}

Result<KubeConfig> ReadKubeconfigTree(const std::string& path, const YAML::Node& root,
                                      const std::string& context) {
  return Reader(path, root).Read(context);
}

}  // namespace gpugate::cluster
