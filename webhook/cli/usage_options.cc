#include "cli/usage_options.h"

#include "common/strings.h"
#include "usage/report_format.h"

namespace gpugate::cli {
namespace {

constexpr FlagSpec kUsageFlags[] = {
    {.name = "period",
     .valueName = "YYYY-MM",
     .help = "the month to report (default: the current month)"},
    {.name = "since",
     .valueName = "DATE",
     .help = "the first day to report (YYYY-MM-DD); needs --until"},
    {.name = "until",
     .valueName = "DATE",
     .help = "the last day to report, included; needs --since"},
    {.name = "by", .valueName = "GROUP", .help = "namespace (default), model, resource or day"},
    {.name = "namespace",
     .shortName = 'n',
     .valueName = "NS",
     .help = "only these namespaces: repeat the flag or give a comma list"},
    {.name = "output",
     .shortName = 'o',
     .valueName = "FORMAT",
     .help = "table (default), json or csv"},
    {.name = "chart",
     .valueName = "FILE",
     .help = "also write an SVG chart of GPU-hours per day by namespace\n"
             "(at most 62 days) to FILE"},
    {.name = "chart-resource",
     .valueName = "NAME",
     .help = "the resource the chart draws (default nvidia.com/gpu)"},
    kServerFlag,
    kCacertFlag,
    kInsecureFlag,
    kCertFlag,
    kKeyFlag,
    kTlsServerNameFlag,
    {.name = "kubeconfig",
     .valueName = "FILE",
     .help = "read the GPUQuota objects' usage from the Kubernetes API\n"
             "instead (cluster mode)"},
    kContextFlag,
    kHelpFlag,
};

constexpr std::string_view kUsageForms[] = {
    "[--period YYYY-MM | --since DATE --until DATE]\n"
    "[--by namespace|model|resource|day] [-n|--namespace NS[,NS...]]\n"
    "[-o|--output table|json|csv] [--chart FILE.svg [--chart-resource NAME]]\n"
    "[--server URL] [--cacert FILE | --insecure-skip-tls-verify]\n"
    "[--cert FILE --key FILE] [--tls-server-name NAME]",
    "--kubeconfig FILE [--context NAME] [the report's and the output's flags]"};

// Every -n, each a name or a comma list, as one comma list; nullopt when none.
std::optional<std::string> Namespaces(const Flags& flags) {
  std::string joined;
  for (const std::string& value : flags.GetAll("namespace")) {
    if (value.empty()) continue;
    joined += (joined.empty() ? "" : ",") + value;
  }
  if (joined.empty()) return std::nullopt;
  return joined;
}

// The report's parameters, checked as GET /usage checks them (the month of an arbitrary day
// stands for the current one: only the spelling is checked here).
Status CheckReport(const UsageOptions& options) {
  auto query = usage::QueryFrom(options.params, TimeZone::Utc(), std::chrono::sys_seconds{});
  if (!query) return Fail("--" + query.error().message);
  if (!options.chart) return {};
  usage::ReportQuery byDay = *query;
  byDay.by = usage::GroupBy::kDay;
  if ((byDay.last - byDay.first).count() + 1 > 62) {
    return Fail("--chart covers at most 62 days; ask for a shorter span");
  }
  return {};
}

}  // namespace

const CommandHelp kUsageHelp = {
    .name = "usage",
    .forms = kUsageForms,
    .summary =
        "Print the GPU-hours spent per namespace, GPU model, resource or day (GET /usage of a\n"
        "running gpugate, whose answer it prints as sent), or, with --kubeconfig, what the\n"
        "cluster's GPUQuota objects record (cluster mode). Also installed as the kubectl\n"
        "plugin `kubectl gpuusage`.",
    .flags = kUsageFlags,
};

Result<UsageOptions> ParseUsageArgs(const std::vector<std::string>& args) {
  auto flags = Flags::Parse(args, kUsageFlags);
  if (!flags) return std::unexpected(flags.error());
  UsageOptions options;
  if (flags->Has("help")) {
    options.help = true;
    return options;
  }
  if (!flags->positional().empty()) {
    return Fail("unexpected argument " + JsonQuote(flags->positional()[0]));
  }
  auto access = ServerAccessFrom(*flags);
  if (!access) return std::unexpected(access.error());
  options.access = std::move(*access);
  options.kubeconfig = flags->Get("kubeconfig");
  options.context = flags->Get("context").value_or("");
  options.params = {.period = flags->Get("period"),
                    .since = flags->Get("since"),
                    .until = flags->Get("until"),
                    .by = flags->Get("by"),
                    .ns = Namespaces(*flags)};
  options.chart = flags->Get("chart");
  options.format = flags->Get("output").value_or("table");
  if (options.format != "table" && options.format != "json" && options.format != "csv") {
    return Fail("--output must be table, json or csv, got " + JsonQuote(options.format));
  }
  options.chartResource = flags->Get("chart-resource");
  if (options.chartResource && !options.chart) return Fail("--chart-resource needs --chart");
  if (options.chart && options.chart->empty()) return Fail("--chart needs a file name");
  if (Status ok = CheckReport(options); !ok) return std::unexpected(ok.error());
  return options;
}

}  // namespace gpugate::cli
