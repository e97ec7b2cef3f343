#include "cli/cli.h"

#include <filesystem>
#include <iostream>

#ifndef GPUGATE_VERSION
#define GPUGATE_VERSION "dev"
#endif

namespace gpugate::cli {
namespace {

constexpr std::string_view kUsageHead = R"(gpugate: a Kubernetes admission webhook for GPU workloads

Usage:
)";

constexpr std::string_view kUsageTail = R"(  gpugate --help
      Print this help.
  gpugate COMMAND --help, gpugate help COMMAND
      Print a command's help: how to call it and what each flag does.

Documentation: docs/ in the source tree (configuration.md, rules.md, quota.md, deployment.md).
)";

constexpr std::string_view kVersionForms[] = {""};
constexpr FlagSpec kVersionFlags[] = {kHelpFlag};
const CommandHelp kVersionHelp = {
    .name = "version",
    .forms = kVersionForms,
    .summary = "Print the version.",
    .flags = kVersionFlags,
};

// Every subcommand's entry comes from its own CommandHelp, the text its --help prints.
void PrintUsage(std::ostream& out) {
  out << kUsageHead;
  for (const CommandHelp* command : {&kServeHelp, &kCertsHelp, &kQuotaHelp, &kUsageHelp,
                                     &kCheckHelp, &kAuditHelp, &kVersionHelp}) {
    PrintCommandEntry(out, *command);
  }
  out << kUsageTail;
}

int RunVersion(const std::vector<std::string>& args) {
  auto flags = Flags::Parse(args, kVersionFlags);
  if (flags && flags->Has("help")) {
    PrintCommandHelp(std::cout, kVersionHelp, "gpugate version");
    return 0;
  }
  if (!flags || !flags->positional().empty()) {
    std::cerr << "gpugate version: "
              << (flags ? "takes no arguments, got \"" + flags->positional()[0] + "\""
                        : flags.error().message)
              << "\n";
    return 2;
  }
  std::cout << "gpugate " << GPUGATE_VERSION << "\n";
  return 0;
}

}  // namespace

int Run(std::string_view program, const std::vector<std::string>& args) {
  const std::filesystem::path invoked = std::filesystem::path(program).filename();
  if (invoked == "kubectl-gpuquota") return RunQuota(args, "kubectl gpuquota");
  if (invoked == "kubectl-gpuusage") return RunUsage(args, "kubectl gpuusage");
  if (args.empty()) {
    PrintUsage(std::cerr);
    return 2;
  }
  const std::string& command = args[0];
  std::vector<std::string> rest(args.begin() + 1, args.end());
  if (command == "help" && rest.size() == 1 && rest[0] != "help") {  // help CMD: CMD --help
    return Run(program, {rest[0], "--help"});
  }
  if (command == "--help" || command == "-h" || command == "help") {
    PrintUsage(std::cout);
    return 0;
  }
  if (command == "version" || command == "--version") return RunVersion(rest);
  if (command == "serve") return RunServe(rest);
  if (command == "certs") return RunCerts(rest);
  if (command == "quota") return RunQuota(rest);
  if (command == "usage") return RunUsage(rest);
  if (command == "check") return RunCheck(rest);
  if (command == "audit") return RunAudit(rest);
  std::cerr << "gpugate: unknown command \"" << command << "\"\n\n";
  PrintUsage(std::cerr);
  return 2;
}

}  // namespace gpugate::cli
