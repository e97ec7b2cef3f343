// `gpugate audit`: what the rules would refuse among the objects already in a cluster, and the
// namespaces using more GPUs than their limits, read with the operator's kubeconfig, before a
// namespace is switched from warn or audit to deny (docs/rules.md, "Rolling out").
#include <charconv>
#include <iostream>
#include <string_view>

#include "cli/api_access.h"
#include "cli/audit_cluster.h"
#include "cli/audit_report.h"
#include "cli/cli.h"
#include "cli/flags.h"
#include "cluster/list_pager.h"
#include "common/strings.h"
#include "config/config.h"

namespace gpugate::cli {
namespace {

constexpr FlagSpec kAuditFlags[] = {
    {.name = "kubeconfig",
     .valueName = "FILE",
     .help = "the kubeconfig to reach the cluster with (default: the first\n"
             "file in $KUBECONFIG, else ~/.kube/config, else the pod's\n"
             "service account)"},
    {.name = "context",
     .valueName = "NAME",
     .help = "the kubeconfig context (default: current-context)"},
    {.name = "config",
     .valueName = "FILE",
     .help = "the configuration file gpugate serve uses (its policy, modes,\n"
             "quota and audit.customResources); without it, the defaults"},
    {.name = "namespace", .shortName = 'n', .valueName = "NS", .help = "only this namespace"},
    {.name = "output", .shortName = 'o', .valueName = "FORMAT", .help = "table (default) or json"},
    {.name = "chunk-size",
     .valueName = "N",
     .help = "objects per list request, as kubectl's --chunk-size (default\n"
             "500; 0 lists each collection in one answer)"},
    kHelpFlag,
};

constexpr std::string_view kAuditForms[] = {
    "[--kubeconfig FILE] [--context NAME] [--config FILE] [-n|--namespace NS]\n"
    "[-o|--output table|json] [--chunk-size N]"};

struct CommandOptions {
  std::string kubeconfig;
  std::string context;
  bool json = false;
  AuditOptions audit;
};

Result<size_t> ParseChunkSize(const std::string& text) {
  size_t n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size() || n > 100000) {
    return Fail("--chunk-size must be a number of objects from 0 to 100000, got " +
                JsonQuote(text));
  }
  return n;
}

// Flags -> options; every error here is a usage error (exit status 2).
Result<CommandOptions> AuditOptionsFrom(const Flags& flags) {
  if (!flags.positional().empty()) {
    return Fail("unexpected argument " + JsonQuote(flags.positional()[0]));
  }
  CommandOptions options;
  options.kubeconfig = flags.Get("kubeconfig").value_or("");
  options.context = flags.Get("context").value_or("");
  options.audit.ns = flags.Get("namespace").value_or("");
  const std::string output = flags.Get("output").value_or("table");
  if (output != "table" && output != "json") {
    return Fail("-o must be table or json, got " + JsonQuote(output));
  }
  options.json = output == "json";
  options.audit.pageSize = cluster::kListPageSize;
  if (auto chunk = flags.Get("chunk-size")) {
    auto n = ParseChunkSize(*chunk);
    if (!n) return std::unexpected(n.error());
    options.audit.pageSize = *n;
  }
  if (auto path = flags.Get("config")) {
    auto loaded = config::LoadConfigFile(*path);
    if (!loaded) return std::unexpected(loaded.error());
    options.audit.settings = std::move(loaded->policy);
    options.audit.quota = std::move(loaded->quota);
    options.audit.audit = std::move(loaded->audit);
  }
  return options;
}

}  // namespace

const CommandHelp kAuditHelp = {
    .name = "audit",
    .forms = kAuditForms,
    .summary =
        "List what the rules would refuse among the objects already in a cluster (Pods, the\n"
        "built-in workloads, audit.customResources), each finding in the webhook's words and\n"
        "in its rule's mode where the object is, and the namespaces whose recorded GPU use is\n"
        "over their limits: what switching a namespace to deny would refuse. Reads with the\n"
        "operator's kubeconfig; needs list on those kinds, namespaces, resourcequotas and\n"
        "gpuquotas. Exit status: 0 nothing would be denied, 1 something would (a finding in\n"
        "deny mode, or a namespace over its limits), 2 the cluster could not be read (or not\n"
        "all of it, with nothing denied in what could) or a usage error.",
    .flags = kAuditFlags,
};

int RunAudit(const std::vector<std::string>& args) {
  auto flags = Flags::Parse(args, kAuditFlags);
  if (flags && flags->Has("help")) {
    PrintCommandHelp(std::cout, kAuditHelp, "gpugate audit");
    return 0;
  }
  auto options = flags ? AuditOptionsFrom(*flags) : std::unexpected(flags.error());
  if (!options) {
    std::cerr << "gpugate audit: " << options.error().message << "\n";
    return 2;
  }
  auto access = OperatorAccess(options->kubeconfig, options->context);
  if (!access) {
    std::cerr << "gpugate audit: " << access.error().message << "\n";
    return 2;
  }
  cluster::KubeClient client(std::move(*access));
  auto report = AuditCluster(client, options->audit);
  if (!report) {
    std::cerr << "gpugate audit: cannot read the cluster: " << report.error().message << "\n";
    return 2;
  }
  if (options->json) {
    std::cout << RenderAuditJson(*report);
  } else {
    WriteAuditTable(*report, std::cout, std::cerr);
  }
  return AuditExitStatus(*report);
}

}  // namespace gpugate::cli
