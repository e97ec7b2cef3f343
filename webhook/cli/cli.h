// The `gpugate` command: subcommands serve, certs, quota, usage, check, audit, version.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "cli/help.h"

namespace gpugate::cli {

// Runs the command line; returns the process exit code: 0 success, 1 failure at run time,
// 2 a usage error. `program` is argv[0] and `args` the rest. Invoked through a link named
// `kubectl-gpuquota` (so `kubectl gpuquota` finds it as a plugin), it runs `quota` with `args`;
// through `kubectl-gpuusage`, `usage`.
int Run(std::string_view program, const std::vector<std::string>& args);

// Each subcommand, and its help (cli/help.h), defined in its own file (serve_command.cc, ...).
// With --help or -h, it prints that help to stdout and returns 0.
int RunServe(const std::vector<std::string>& args);
extern const CommandHelp kServeHelp;
int RunCerts(const std::vector<std::string>& args);
extern const CommandHelp kCertsHelp;
// `command` is how the user invoked it, for messages: "gpugate quota" or "kubectl gpuquota".
int RunQuota(const std::vector<std::string>& args, std::string_view command = "gpugate quota");
extern const CommandHelp kQuotaHelp;
// `command`: "gpugate usage" or "kubectl gpuusage". Exit status 0 printed (and the chart
// written), 1 the report could not be read or the chart not written, 2 a usage error.
int RunUsage(const std::vector<std::string>& args, std::string_view command = "gpugate usage");
extern const CommandHelp kUsageHelp;
// Exit status 0 clean, 1 something would be denied, 2 unreadable input or a usage error.
int RunCheck(const std::vector<std::string>& args);
extern const CommandHelp kCheckHelp;
// Exit status 0 nothing would be denied, 1 something would, 2 the cluster could not be read (or
// not all of it, and nothing denied in what could) or a usage error.
int RunAudit(const std::vector<std::string>& args);
extern const CommandHelp kAuditHelp;

}  // namespace gpugate::cli
