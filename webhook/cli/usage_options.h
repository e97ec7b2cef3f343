// `gpugate usage` (also run as the kubectl plugin `kubectl gpuusage`): its flags, its help, and
// what a command line asks for, apart from running it (usage_command.cc), so the reading of
// every flag is tested as a table.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/help.h"
#include "cli/server_fetch.h"
#include "common/result.h"
#include "usage/report_query.h"

namespace gpugate::cli {

extern const CommandHelp kUsageHelp;

struct UsageOptions {
  // Where the figures come from: the cluster's GPUQuota objects when `kubeconfig` is set, else
  // the gpugate at `access`.
  std::optional<std::string> kubeconfig;
  std::string context;
  ServerAccess access;
  // What GET /usage takes: period or since/until, by, and every -n joined with commas.
  usage::ReportParams params;
  std::string format = "table";              // -o: table, json or csv
  std::optional<std::string> chart;          // --chart FILE.svg
  std::optional<std::string> chartResource;  // --chart-resource; needs --chart
  bool help = false;                         // -h: print kUsageHelp, nothing else
};

// The command line after `usage`, read in this order (every error is a usage error, worded as
// the flag: "--period: ..."):
//   1. flags (cli/flags.h), no positional argument; --help stops here;
//   2. the source (ServerAccessFrom: --kubeconfig or --server and its TLS flags);
//   3. -n/--namespace: repeatable, each a name or a comma list;
//   4. -o: table (default), json or csv;
//   5. --chart-resource only with --chart;
//   6. --period, or --since with --until, and --by: as GET /usage reads them
//      (usage/report_query.h), default the current month by namespace; with --chart, at most
//      62 days.
Result<UsageOptions> ParseUsageArgs(const std::vector<std::string>& args);

}  // namespace gpugate::cli
