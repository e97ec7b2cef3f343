// `gpugate quota` (also run as the kubectl plugin `kubectl gpuquota`): fetches GET /quota from a
// running gpugate over TLS and prints it as a table or as the server's JSON; the GPU-hours each
// namespace has spent this period follow the holdings (usage/spend_report.h).
#include <chrono>
#include <iostream>
#include <utility>

#include "cli/cli.h"
#include "cli/flags.h"
#include "cli/quota_from_cluster.h"
#include "cli/server_fetch.h"
#include "cli/usage_from_cluster.h"
#include "cluster/kube_client.h"
#include "cluster/kube_config.h"
#include "common/strings.h"
#include "quota/report.h"
#include "usage/report_query.h"
#include "usage/spend_report.h"

namespace gpugate::cli {
namespace {

constexpr FlagSpec kQuotaFlags[] = {
    kServerFlag,
    kCacertFlag,
    kInsecureFlag,
    kCertFlag,
    kKeyFlag,
    kTlsServerNameFlag,
    {.name = "kubeconfig",
     .valueName = "FILE",
     .help = "read GPUQuota objects from the Kubernetes API instead"},
    kContextFlag,
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
  ServerAccess access;
  std::string ns;
  bool json = false;
};

// Flags -> options; every error here is a usage error.
Result<QuotaOptions> QuotaOptionsFrom(const Flags& flags) {
  if (!flags.positional().empty()) {
    return Fail("unexpected argument " + JsonQuote(flags.positional()[0]));
  }
  auto access = ServerAccessFrom(flags);
  if (!access) return std::unexpected(access.error());
  QuotaOptions options{.access = std::move(*access)};
  options.ns = flags.Get("namespace").value_or("");
  std::string output = flags.Get("output").value_or("table");
  if (output != "table" && output != "json") {
    return Fail("--output must be table or json, got " + JsonQuote(output));
  }
  options.json = output == "json";
  return options;
}

// The spend this month that the GPUQuota objects' usage books and started charges record
// (usage_from_cluster.h), in `ns` or every namespace; no budgets (those are gpugate's config).
Result<std::vector<usage::SpendRow>> ClusterSpend(const std::string& kubeconfig,
                                                  const std::string& context,
                                                  const std::string& ns) {
  auto access = cluster::LoadKubeconfig(kubeconfig, context);
  if (!access) return std::unexpected(access.error());
  cluster::KubeClient client(std::move(*access));
  const auto now = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
  auto books = ReadClusterBooks(client, now);
  if (!books) return std::unexpected(books.error());
  auto month = usage::QueryFrom({}, books->zone, now);
  if (!month) return std::unexpected(month.error());
  auto report = usage::BuildReportOfBooks(books->zone, books->books, books->running, *month);
  if (!report) return std::unexpected(report.error());
  return usage::SpendRows({}, *report, ns);
}

// Cluster mode: the GPUQuota objects themselves. The spend is shown when it can be read; when
// it cannot, the holdings still are, with the reason on stderr.
int PrintClusterUsage(const std::string& kubeconfig, const std::string& context,
                      const QuotaOptions& options, const std::string& prefix) {
  auto usage = UsageFromCluster(kubeconfig, context, options.ns);
  if (!usage) {
    std::cerr << prefix << usage.error().message << "\n";
    return 1;
  }
  auto spend = ClusterSpend(kubeconfig, context, options.ns);
  if (!spend) {
    std::cerr << prefix << "the GPU-hours spent are not shown: " << spend.error().message << "\n";
    spend = std::vector<usage::SpendRow>{};
  }
  if (options.json) {
    std::cout << usage::WithSpendJson(quota::UsageJson(*usage), *spend) << "\n";
  } else {
    std::cout << quota::UsageTable(*usage) << (spend->empty() ? "" : "\n")
              << usage::SpendTable(*spend);
  }
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
  if (Status readable = CheckFilesReadable(options->access); !readable) {
    std::cerr << prefix << readable.error().message << "\n";
    return 1;
  }
  const std::string url = options->access.url + "/quota";
  std::vector<std::pair<std::string, std::string>> params;
  if (!options->ns.empty()) params.emplace_back("namespace", options->ns);
  auto body = FetchFromServer(options->access, "/quota", params, "application/json");
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
  auto spend = usage::ParseSpendJson(*body);
  if (!spend) {
    std::cerr << prefix << url << " did not answer with a usage report: " << spend.error().message
              << "\n";
    return 1;
  }
  if (options->json) {
    std::cout << *body << (body->ends_with('\n') ? "" : "\n");
  } else {
    std::cout << quota::UsageTable(*usage) << (spend->empty() ? "" : "\n")
              << usage::SpendTable(*spend);
  }
  return 0;
}

}  // namespace gpugate::cli
