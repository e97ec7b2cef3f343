#include "cli/cli.h"

#include <iostream>

#ifndef GPUGATE_VERSION
#define GPUGATE_VERSION "dev"
#endif

namespace gpugate::cli {
namespace {

constexpr const char* kUsage = R"(gpugate: a Kubernetes admission webhook for GPU workloads

Usage:
  gpugate serve [--config FILE] [--listen HOST:PORT] [--tls-cert FILE] [--tls-key FILE]
      Serve /validate, /mutate, /healthz, /readyz and /metrics over HTTPS.
  gpugate certs --out DIR [--service NAME] [--namespace NS] [--days N] [--host H]...
      Write ca.crt, tls.crt and tls.key for the webhook Service; print the caBundle.
  gpugate version
      Print the version.
  gpugate --help
      Print this help.

Documentation: docs/ in the source tree (configuration.md, rules.md, deployment.md).
)";

}  // namespace

int Run(const std::vector<std::string>& args) {
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
  std::cerr << "gpugate: unknown command \"" << command << "\"\n\n" << kUsage;
  return 2;
}

}  // namespace gpugate::cli
