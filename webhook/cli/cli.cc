#include "cli/cli.h"

#include <filesystem>
#include <iostream>

#ifndef GPUGATE_VERSION
#define GPUGATE_VERSION "dev"
#endif

namespace gpugate::cli {
namespace {

constexpr const char* kUsage = R"(gpugate: a Kubernetes admission webhook for GPU workloads

Usage:
  gpugate serve [--config FILE] [--listen HOST:PORT] [--tls-cert FILE] [--tls-key FILE]
                [--tls-client-ca FILE] [--kubeconfig FILE] [--shutdown-delay SECONDS]
      Serve /validate, /mutate, /quota, /healthz, /readyz and /metrics over HTTPS. On SIGTERM,
      drain for --shutdown-delay seconds (default 0), then finish in-flight reviews and exit.
  gpugate certs --out DIR [--service NAME] [--namespace NS] [--days N] [--host H]...
                [--client NAME]
      Write ca.crt, tls.crt and tls.key for the webhook Service; print the caBundle. With
      --client, also client.crt and client.key (CN=NAME, for client authentication).
  gpugate quota [--server URL] [--cacert FILE | --insecure-skip-tls-verify]
                [--cert FILE --key FILE] [--tls-server-name NAME] [-n|--namespace NS]
                [-o|--output table|json]
      Print the GPU quota usage of a running gpugate (GET /quota). Also installed as the
      kubectl plugin `kubectl gpuquota`.
  gpugate version
      Print the version.
  gpugate --help
      Print this help.

Documentation: docs/ in the source tree (configuration.md, rules.md, quota.md, deployment.md).
)";

}  // namespace

int Run(std::string_view program, const std::vector<std::string>& args) {
  if (std::filesystem::path(program).filename() == "kubectl-gpuquota") {
    return RunQuota(args, "kubectl gpuquota");
  }
  if (args.empty()) {
    std::cerr << kUsage;
    return 2;
  }
  const std::string& command = args[0];
  std::vector<std::string> rest(args.begin() + 1, args.end());
  if (command == "--help" || command == "-h" || command == "help") {
    std::cout << kUsage;
    return 0;
  }
  if (command == "version" || command == "--version") {
    std::cout << "gpugate " << GPUGATE_VERSION << "\n";
    return 0;
  }
  if (command == "serve") return RunServe(rest);
  if (command == "certs") return RunCerts(rest);
  if (command == "quota") return RunQuota(rest);
  std::cerr << "gpugate: unknown command \"" << command << "\"\n\n" << kUsage;
  return 2;
}

}  // namespace gpugate::cli
