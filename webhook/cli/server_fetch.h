// How the commands that read a running gpugate (`gpugate quota`, `gpugate usage`) reach it: the
// --server URL and the TLS flags, and one GET over TLS with errors a user can act on. The flags'
// table entries live here so both commands describe them in the same words.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cli/flags.h"
#include "common/host_port.h"
#include "common/result.h"

namespace gpugate::cli {

inline constexpr std::string_view kDefaultServer = "https://127.0.0.1:8443";

inline constexpr FlagSpec kServerFlag = {
    .name = "server",
    .valueName = "URL",
    .help = "https://HOST[:PORT][/PREFIX] (default https://127.0.0.1:8443)"};
inline constexpr FlagSpec kCacertFlag = {
    .name = "cacert",
    .valueName = "FILE",
    .help = "verify the server against this CA (default: system CAs)"};
inline constexpr FlagSpec kInsecureFlag = {.name = "insecure-skip-tls-verify",
                                           .takesValue = false,
                                           .help = "do not verify the server's certificate"};
inline constexpr FlagSpec kCertFlag = {
    .name = "cert",
    .valueName = "FILE",
    .help =
        "present this client certificate, for a gpugate with mutual TLS\n"
        "(tls.clientCAFile); needs --key"};
inline constexpr FlagSpec kKeyFlag = {
    .name = "key", .valueName = "FILE", .help = "the private key of --cert; needs --cert"};
inline constexpr FlagSpec kTlsServerNameFlag = {
    .name = "tls-server-name",
    .valueName = "NAME",
    .help =
        "the name the certificate must carry, when it is not the\n"
        "--server host (e.g. gpugate.gpugate-system.svc through\n"
        "kubectl port-forward)"};
inline constexpr FlagSpec kContextFlag = {
    .name = "context",
    .valueName = "NAME",
    .help = "the kubeconfig context (default: current-context)"};

// A running gpugate and how to speak TLS to it.
struct ServerAccess {
  std::string url;  // --server as given, without trailing slashes, for messages
  HostPort server;
  std::string basePath;  // "" or "/prefix", without a trailing slash
  std::string cacert;
  bool insecure = false;
  std::string cert, key;   // the client certificate and its key; both empty or both set
  std::string serverName;  // for SNI and verification; empty: the server host
};

// The server flags above, and which source they choose, read in this order (every error is a
// usage error):
//   1. --kubeconfig reads the cluster instead: no server flag may come with it; --context needs
//      it;
//   2. --server: an https:// URL (default kDefaultServer), the port 443 when not given;
//   3. --cacert and --insecure-skip-tls-verify exclude each other; --cert and --key come
//      together.
Result<ServerAccess> ServerAccessFrom(const Flags& flags);

// The files the flags name can be read: "cannot read --cacert FILE" (a run-time error).
Status CheckFilesReadable(const ServerAccess& access);

// GETs `path` (under the base path) with `params`, asking for `accept`; the body of a 200
// answer, or an error that starts with the URL and says what went wrong: no connection, a
// failed handshake or verification (with the flag that fixes it), or the HTTP status with the
// first line of the answer (with a hint for a 403).
Result<std::string> FetchFromServer(const ServerAccess& access, std::string_view path,
                                    const std::vector<std::pair<std::string, std::string>>& params,
                                    std::string_view accept);

}  // namespace gpugate::cli
