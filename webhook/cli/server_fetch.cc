#include "cli/server_fetch.h"

#include <httplib.h>
#include <netdb.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <sys/socket.h>

#include <fstream>
#include <map>

#include "cluster/tls_material.h"
#include "common/files.h"
#include "common/strings.h"

namespace gpugate::cli {
namespace {

// "https://HOST[:PORT][/PREFIX]"; the port defaults to 443.
Result<ServerAccess> ParseServerUrl(std::string_view url) {
  constexpr std::string_view kScheme = "https://";
  if (!url.starts_with(kScheme)) {
    return Fail("--server must be an https:// URL, got " + JsonQuote(url));
  }
  std::string_view rest = url.substr(kScheme.size());
  size_t slash = rest.find('/');
  std::string authority(rest.substr(0, slash));
  ServerAccess access;
  access.url = std::string(url);
  while (access.url.ends_with('/')) access.url.pop_back();
  if (slash != std::string_view::npos) access.basePath = rest.substr(slash);
  while (access.basePath.ends_with('/')) access.basePath.pop_back();
  bool hasPort = authority.starts_with('[') ? authority.find("]:") != std::string::npos
                                            : authority.find(':') != std::string::npos;
  if (!hasPort) authority += ":443";
  auto hostPort = ParseHostPort(authority);
  if (!hostPort) return Fail("--server " + JsonQuote(url) + ": " + hostPort.error().message);
  if (hostPort->host.empty() || hostPort->port == 0) {
    return Fail("--server " + JsonQuote(url) + ": want a host and a non-zero port");
  }
  access.server = *hostPort;
  return access;
}

// Why the TLS client failed, in words a user can act on.
std::string DescribeFailure(httplib::Error error, const httplib::SSLClient& client,
                            const ServerAccess& access) {
  switch (error) {
    case httplib::Error::Connection:
    case httplib::Error::ConnectionTimeout:
      return "cannot connect (is gpugate serving there?)";
    case httplib::Error::SSLConnection:
      return "TLS handshake failed (is it an HTTPS port?)";
    case httplib::Error::SSLLoadingCerts:
      return "cannot load the CA certificates" +
             (access.cacert.empty() ? std::string() : " from " + access.cacert);
    case httplib::Error::SSLServerVerification: {
      if (long verify = client.get_openssl_verify_result(); verify != X509_V_OK) {
        return std::string("cannot verify the server: ") + X509_verify_cert_error_string(verify) +
               " (pass --cacert with the CA that signed its certificate)";
      }
      const std::string& name = access.serverName.empty() ? access.server.host : access.serverName;
      return "cannot verify the server: its certificate is not for " + name +
             " (pass --tls-server-name with a name it carries)";
    }
    default:
      return "request failed: " + httplib::to_string(error);
  }
}

// What to do about a 403: gpugate answers one to a caller that presents no certificate from its
// client CA (tls.clientCAFile), or one it does not accept.
std::string ForbiddenHint(const ServerAccess& access) {
  if (access.cert.empty()) {
    return " (pass --cert and --key with a client certificate from the server's client CA)";
  }
  return " (the server did not accept --cert " + access.cert + ": it needs one from its client CA)";
}

// Has `ctx` present the certificate in --cert (and any intermediates after it) with the key in
// --key, parsed as a kubeconfig's client pair is (cluster/tls_material.h: an encrypted key is
// refused, never prompted for). Loaded here rather than by httplib's constructor, which says
// neither which file failed nor why.
Status UseClientPair(SSL_CTX* ctx, const ServerAccess& access) {
  auto certPem = ReadFile(access.cert);
  auto chain = certPem ? cluster::ParseCertificates(*certPem) : std::unexpected(certPem.error());
  if (!chain) return Fail("--cert " + access.cert + " holds no PEM certificate");
  auto keyPem = ReadFile(access.key);
  auto key = keyPem ? cluster::ParsePrivateKey(*keyPem) : std::unexpected(keyPem.error());
  if (!key) return Fail("--key " + access.key + " holds no unencrypted PEM private key");
  bool used = SSL_CTX_use_certificate(ctx, chain->front().get()) == 1;
  for (size_t i = 1; used && i < chain->size(); ++i) {
    used = SSL_CTX_add1_chain_cert(ctx, (*chain)[i].get()) == 1;
  }
  used =
      used && SSL_CTX_use_PrivateKey(ctx, key->get()) == 1 && SSL_CTX_check_private_key(ctx) == 1;
  ERR_clear_error();
  if (!used) return Fail("--key " + access.key + " does not match --cert " + access.cert);
  return {};
}

// The body's first line, shortened, for an error message.
std::string Excerpt(const std::string& body) {
  std::string line = body.substr(0, body.find('\n'));
  return line.size() > 200 ? line.substr(0, 200) + "..." : line;
}

// The first address `host` resolves to, as a numeric string.
Result<std::string> NumericAddress(const std::string& host) {
  addrinfo hints{.ai_socktype = SOCK_STREAM};
  addrinfo* found = nullptr;
  if (int rc = getaddrinfo(host.c_str(), nullptr, &hints, &found); rc != 0) {
    return Fail("cannot resolve " + host + ": " + gai_strerror(rc));
  }
  char numeric[NI_MAXHOST];
  int rc = getnameinfo(found->ai_addr, found->ai_addrlen, numeric, sizeof numeric, nullptr, 0,
                       NI_NUMERICHOST);
  freeaddrinfo(found);
  if (rc != 0) return Fail("cannot resolve " + host + ": " + gai_strerror(rc));
  return std::string(numeric);
}

}  // namespace

Result<ServerAccess> ServerAccessFrom(const Flags& flags) {
  if (flags.Has("kubeconfig")) {
    for (const char* f :
         {"server", "cacert", "insecure-skip-tls-verify", "tls-server-name", "cert", "key"}) {
      if (flags.Has(f)) {
        return Fail("--kubeconfig reads the cluster directly and does not combine with --" +
                    std::string(f));
      }
    }
  } else if (flags.Has("context")) {
    return Fail("--context needs --kubeconfig");
  }
  auto access = ParseServerUrl(flags.Get("server").value_or(std::string(kDefaultServer)));
  if (!access) return access;
  access->cacert = flags.Get("cacert").value_or("");
  access->insecure = flags.Has("insecure-skip-tls-verify");
  if (access->insecure && !access->cacert.empty()) {
    return Fail("--cacert and --insecure-skip-tls-verify exclude each other");
  }
  if (flags.Has("cert") != flags.Has("key")) {
    return Fail(flags.Has("cert") ? "--cert needs --key" : "--key needs --cert");
  }
  access->cert = flags.Get("cert").value_or("");
  access->key = flags.Get("key").value_or("");
  access->serverName = flags.Get("tls-server-name").value_or("");
  return access;
}

Status CheckFilesReadable(const ServerAccess& access) {
  const std::pair<const char*, const std::string&> files[] = {
      {"cacert", access.cacert}, {"cert", access.cert}, {"key", access.key}};
  for (const auto& [flag, file] : files) {
    if (!file.empty() && !std::ifstream(file).good()) {
      return Fail("cannot read --" + std::string(flag) + " " + file);
    }
  }
  return {};
}

Result<std::string> FetchFromServer(const ServerAccess& access, std::string_view path,
                                    const std::vector<std::pair<std::string, std::string>>& params,
                                    std::string_view accept) {
  const std::string url = access.url + std::string(path);
  // httplib sends SNI for and verifies the host it was made with; with --tls-server-name that is
  // the name, and the address map sends the connection to the --server host instead.
  std::string clientHost = access.server.host;
  std::map<std::string, std::string> addresses;
  if (!access.serverName.empty()) {
    auto address = NumericAddress(access.server.host);
    if (!address) return Fail(url + ": " + address.error().message);
    clientHost = access.serverName;
    addresses[clientHost] = *address;
  }
  httplib::SSLClient client(clientHost, access.server.port);
  if (!access.cert.empty()) {
    if (Status used = UseClientPair(client.ssl_context(), access); !used) {
      return std::unexpected(used.error());
    }
  }
  client.set_hostname_addr_map(addresses);
  client.enable_server_certificate_verification(!access.insecure);
  if (!access.cacert.empty()) client.set_ca_cert_path(access.cacert.c_str());
  client.set_connection_timeout(5, 0);
  client.set_read_timeout(10, 0);
  httplib::Params query(params.begin(), params.end());
  auto res =
      client.Get(access.basePath + std::string(path), query, {{"Accept", std::string(accept)}});
  if (!res) return Fail(url + ": " + DescribeFailure(res.error(), client, access));
  if (res->status != 200) {
    std::string status = "HTTP " + std::to_string(res->status) + " " + res->reason;
    std::string excerpt = Excerpt(res->body);
    std::string hint = res->status == 403 ? ForbiddenHint(access) : "";
    return Fail(url + ": " + status + (excerpt.empty() ? "" : ": " + excerpt) + hint);
  }
  return res->body;
}

}  // namespace gpugate::cli
