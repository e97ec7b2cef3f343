// `gpugate quota` (also run as the kubectl plugin `kubectl gpuquota`): fetches GET /quota from a
// running gpugate over TLS and prints it as a table or as the server's JSON.
#include <httplib.h>
#include <netdb.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <sys/socket.h>

#include <fstream>
#include <iostream>
#include <map>
#include <utility>

#include "cli/cli.h"
#include "cli/flags.h"
#include "cli/quota_from_cluster.h"
#include "cluster/tls_material.h"
#include "common/files.h"
#include "common/host_port.h"
#include "common/strings.h"
#include "quota/report.h"

namespace gpugate::cli {
namespace {

constexpr const char* kDefaultServer = "https://127.0.0.1:8443";

constexpr FlagSpec kQuotaFlags[] = {
    {.name = "server",
     .valueName = "URL",
     .help = "https://HOST[:PORT][/PREFIX] (default https://127.0.0.1:8443)"},
    {.name = "cacert",
     .valueName = "FILE",
     .help = "verify the server against this CA (default: system CAs)"},
    {.name = "insecure-skip-tls-verify",
     .takesValue = false,
     .help = "do not verify the server's certificate"},
    {.name = "cert",
     .valueName = "FILE",
     .help = "present this client certificate, for a gpugate with mutual TLS\n"
             "(tls.clientCAFile); needs --key"},
    {.name = "key", .valueName = "FILE", .help = "the private key of --cert; needs --cert"},
    {.name = "tls-server-name",
     .valueName = "NAME",
     .help = "the name the certificate must carry, when it is not the\n"
             "--server host (e.g. gpugate.gpugate-system.svc through\n"
             "kubectl port-forward)"},
    {.name = "kubeconfig",
     .valueName = "FILE",
     .help = "read GPUQuota objects from the Kubernetes API instead"},
    {.name = "context",
     .valueName = "NAME",
     .help = "the kubeconfig context (default: current-context)"},
    {.name = "namespace", .shortName = 'n', .valueName = "NS", .help = "only this namespace"},
    {.name = "output",
     .shortName = 'o',
     .valueName = "FORMAT",
     .help = "table (default) or json (the server's answer as sent)"},
    kHelpFlag,
};

constexpr std::string_view kQuotaForms[] = {
    "[--server URL] [--cacert FILE | --insecure-skip-tls-verify]\n"
    "[--cert FILE --key FILE] [--tls-server-name NAME] [-n|--namespace NS]\n"
    "[-o|--output table|json]",
    "--kubeconfig FILE [--context NAME] [-n NS] [-o table|json]"};

struct QuotaOptions {
  HostPort server;
  std::string basePath;  // "" or "/prefix", without a trailing slash
  std::string cacert;
  bool insecure = false;
  std::string cert, key;   // the client certificate and its key; both empty or both set
  std::string serverName;  // for SNI and verification; empty: the server host
  std::string ns;
  bool json = false;
};

// "https://HOST[:PORT][/PREFIX]"; the port defaults to 443.
Result<QuotaOptions> ParseServerUrl(std::string_view url) {
  constexpr std::string_view kScheme = "https://";
  if (!url.starts_with(kScheme)) {
    return Fail("--server must be an https:// URL, got " + JsonQuote(url));
  }
  std::string_view rest = url.substr(kScheme.size());
  size_t slash = rest.find('/');
  std::string authority(rest.substr(0, slash));
  QuotaOptions options;
  if (slash != std::string_view::npos) options.basePath = rest.substr(slash);
  while (options.basePath.ends_with('/')) options.basePath.pop_back();
  bool hasPort = authority.starts_with('[') ? authority.find("]:") != std::string::npos
                                            : authority.find(':') != std::string::npos;
  if (!hasPort) authority += ":443";
  auto hostPort = ParseHostPort(authority);
  if (!hostPort) return Fail("--server " + JsonQuote(url) + ": " + hostPort.error().message);
  if (hostPort->host.empty() || hostPort->port == 0) {
    return Fail("--server " + JsonQuote(url) + ": want a host and a non-zero port");
  }
  options.server = *hostPort;
  return options;
}

// Flags -> options; every error here is a usage error.
Result<QuotaOptions> QuotaOptionsFrom(const Flags& flags) {
  if (!flags.positional().empty()) {
    return Fail("unexpected argument " + JsonQuote(flags.positional()[0]));
  }
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
  auto options = ParseServerUrl(flags.Get("server").value_or(kDefaultServer));
  if (!options) return options;
  options->cacert = flags.Get("cacert").value_or("");
  options->insecure = flags.Has("insecure-skip-tls-verify");
  if (options->insecure && !options->cacert.empty()) {
    return Fail("--cacert and --insecure-skip-tls-verify exclude each other");
  }
  if (flags.Has("cert") != flags.Has("key")) {
    return Fail(flags.Has("cert") ? "--cert needs --key" : "--key needs --cert");
  }
  options->cert = flags.Get("cert").value_or("");
  options->key = flags.Get("key").value_or("");
  options->serverName = flags.Get("tls-server-name").value_or("");
  options->ns = flags.Get("namespace").value_or("");
  std::string output = flags.Get("output").value_or("table");
  if (output != "table" && output != "json") {
    return Fail("--output must be table or json, got " + JsonQuote(output));
  }
  options->json = output == "json";
  return options;
}

// Why the TLS client failed, in words a user can act on.
std::string DescribeFailure(httplib::Error error, const httplib::SSLClient& client,
                            const QuotaOptions& options) {
  switch (error) {
    case httplib::Error::Connection:
    case httplib::Error::ConnectionTimeout:
      return "cannot connect (is gpugate serving there?)";
    case httplib::Error::SSLConnection:
      return "TLS handshake failed (is it an HTTPS port?)";
    case httplib::Error::SSLLoadingCerts:
      return "cannot load the CA certificates" +
             (options.cacert.empty() ? std::string() : " from " + options.cacert);
    case httplib::Error::SSLServerVerification: {
      if (long verify = client.get_openssl_verify_result(); verify != X509_V_OK) {
        return std::string("cannot verify the server: ") + X509_verify_cert_error_string(verify) +
               " (pass --cacert with the CA that signed its certificate)";
      }
      const std::string& name =
          options.serverName.empty() ? options.server.host : options.serverName;
      return "cannot verify the server: its certificate is not for " + name +
             " (pass --tls-server-name with a name it carries)";
    }
    default:
      return "request failed: " + httplib::to_string(error);
  }
}

// What to do about a 403: gpugate answers one to a caller that presents no certificate from its
// client CA (tls.clientCAFile), or one it does not accept.
std::string ForbiddenHint(const QuotaOptions& options) {
  if (options.cert.empty()) {
    return " (pass --cert and --key with a client certificate from the server's client CA)";
  }
  return " (the server did not accept --cert " + options.cert +
         ": it needs one from its client CA)";
}

// Has `ctx` present the certificate in --cert (and any intermediates after it) with the key in
// --key, parsed as a kubeconfig's client pair is (cluster/tls_material.h: an encrypted key is
// refused, never prompted for). Loaded here rather than by httplib's constructor, which says
// neither which file failed nor why.
Status UseClientPair(SSL_CTX* ctx, const QuotaOptions& options) {
  auto certPem = ReadFile(options.cert);
  auto chain = certPem ? cluster::ParseCertificates(*certPem) : std::unexpected(certPem.error());
  if (!chain) return Fail("--cert " + options.cert + " holds no PEM certificate");
  auto keyPem = ReadFile(options.key);
  auto key = keyPem ? cluster::ParsePrivateKey(*keyPem) : std::unexpected(keyPem.error());
  if (!key) return Fail("--key " + options.key + " holds no unencrypted PEM private key");
  bool used = SSL_CTX_use_certificate(ctx, chain->front().get()) == 1;
  for (size_t i = 1; used && i < chain->size(); ++i) {
    used = SSL_CTX_add1_chain_cert(ctx, (*chain)[i].get()) == 1;
  }
  used =
      used && SSL_CTX_use_PrivateKey(ctx, key->get()) == 1 && SSL_CTX_check_private_key(ctx) == 1;
  ERR_clear_error();
  if (!used) return Fail("--key " + options.key + " does not match --cert " + options.cert);
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

// GETs /quota; the body of a 200 answer, or an error saying what went wrong.
Result<std::string> FetchReport(const QuotaOptions& options, const std::string& url) {
  // httplib sends SNI for and verifies the host it was made with; with --tls-server-name that is
  // the name, and the address map sends the connection to the --server host instead.
  std::string clientHost = options.server.host;
  std::map<std::string, std::string> addresses;
  if (!options.serverName.empty()) {
    auto address = NumericAddress(options.server.host);
    if (!address) return Fail(url + ": " + address.error().message);
    clientHost = options.serverName;
    addresses[clientHost] = *address;
  }
  httplib::SSLClient client(clientHost, options.server.port);
  if (!options.cert.empty()) {
    if (Status used = UseClientPair(client.ssl_context(), options); !used) {
      return std::unexpected(used.error());
    }
  }
  client.set_hostname_addr_map(addresses);
  client.enable_server_certificate_verification(!options.insecure);
  if (!options.cacert.empty()) client.set_ca_cert_path(options.cacert.c_str());
  client.set_connection_timeout(5, 0);
  client.set_read_timeout(10, 0);
  httplib::Params params;
  if (!options.ns.empty()) params.emplace("namespace", options.ns);
  auto res = client.Get(options.basePath + "/quota", params, {{"Accept", "application/json"}});
  if (!res) return Fail(url + ": " + DescribeFailure(res.error(), client, options));
  if (res->status != 200) {
    std::string status = "HTTP " + std::to_string(res->status) + " " + res->reason;
    std::string excerpt = Excerpt(res->body);
    std::string hint = res->status == 403 ? ForbiddenHint(options) : "";
    return Fail(url + ": " + status + (excerpt.empty() ? "" : ": " + excerpt) + hint);
  }
  return res->body;
}

// Cluster mode: the GPUQuota objects themselves.
int PrintClusterUsage(const std::string& kubeconfig, const std::string& context,
                      const QuotaOptions& options, const std::string& prefix) {
  auto usage = UsageFromCluster(kubeconfig, context, options.ns);
  if (!usage) {
    std::cerr << prefix << usage.error().message << "\n";
    return 1;
  }
  std::cout << (options.json ? quota::UsageJson(*usage) + "\n" : quota::UsageTable(*usage));
  return 0;
}

}  // namespace

const CommandHelp kQuotaHelp = {
    .name = "quota",
    .forms = kQuotaForms,
    .summary =
        "Print the GPU quota usage a running gpugate has charged (GET /quota), or, with\n"
        "--kubeconfig, what the cluster's GPUQuota objects record (cluster mode). Also\n"
        "installed as the kubectl plugin `kubectl gpuquota`.",
    .flags = kQuotaFlags,
};

int RunQuota(const std::vector<std::string>& args, std::string_view command) {
  const std::string prefix = std::string(command) + ": ";
  auto flags = Flags::Parse(args, kQuotaFlags);
  if (flags && flags->Has("help")) {
    PrintCommandHelp(std::cout, kQuotaHelp, command);
    return 0;
  }
  auto options = flags ? QuotaOptionsFrom(*flags) : std::unexpected(flags.error());
  if (!options) {
    std::cerr << prefix << options.error().message << "\n\n";
    PrintCommandHelp(std::cerr, kQuotaHelp, command);
    return 2;
  }
  if (auto kubeconfig = flags->Get("kubeconfig")) {
    return PrintClusterUsage(*kubeconfig, flags->Get("context").value_or(""), *options, prefix);
  }
  const std::pair<const char*, const std::string&> files[] = {
      {"cacert", options->cacert}, {"cert", options->cert}, {"key", options->key}};
  for (const auto& [flag, file] : files) {
    if (!file.empty() && !std::ifstream(file).good()) {
      std::cerr << prefix << "cannot read --" << flag << " " << file << "\n";
      return 1;
    }
  }
  std::string url = flags->Get("server").value_or(kDefaultServer);
  while (url.ends_with('/')) url.pop_back();
  url += "/quota";
  auto body = FetchReport(*options, url);
  if (!body) {
    std::cerr << prefix << body.error().message << "\n";
    return 1;
  }
  auto usage = quota::ParseUsageJson(*body);
  if (!usage) {
    std::cerr << prefix << url << " did not answer with a usage report: " << usage.error().message
              << "\n";
    return 1;
  }
  if (options->json) {
    std::cout << *body << (body->ends_with('\n') ? "" : "\n");
  } else {
    std::cout << quota::UsageTable(*usage);
  }
  return 0;
}

}  // namespace gpugate::cli
