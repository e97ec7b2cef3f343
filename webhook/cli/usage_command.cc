// `gpugate usage` (also run as the kubectl plugin `kubectl gpuusage`): a GPU-hour usage report,
// either as a running gpugate renders it (GET /usage?format=..., printed as sent) or built here
// from the cluster's GPUQuota objects with the same renderers (usage/report_format.h), so both
// sources print the same bytes for the same figures.
#include <chrono>
#include <fstream>
#include <functional>
#include <iostream>
#include <optional>

#include "cli/cli.h"
#include "cli/usage_from_cluster.h"
#include "cli/usage_options.h"
#include "cluster/kube_client.h"
#include "cluster/kube_config.h"
#include "usage/report_format.h"

namespace gpugate::cli {
namespace {

using std::chrono::sys_seconds;

// The report in `format` ("table", "json", "csv" or "svg"); `resource`: the chart's.
using Render = std::function<Result<std::string>(const std::string& format,
                                                 const std::optional<std::string>& resource)>;

// A running gpugate renders it: GET /usage with the report's parameters and the format.
Render FromServer(const UsageOptions& options) {
  return [&options](const std::string& format, const std::optional<std::string>& resource) {
    const usage::ReportParams& p = options.params;
    std::vector<std::pair<std::string, std::string>> params;
    for (const auto& [name, value] : {std::pair{"period", p.period}, std::pair{"since", p.since},
                                      std::pair{"until", p.until}, std::pair{"namespace", p.ns}}) {
      if (value) params.emplace_back(name, *value);
    }
    // A chart is always by day: the server refuses any other grouping for one.
    if (p.by && format != "svg") params.emplace_back("by", *p.by);
    params.emplace_back("format", format);
    if (resource) params.emplace_back("resource", *resource);
    return FetchFromServer(options.access, "/usage", params, "*/*");
  };
}

// The GPUQuota objects' books, rendered here as the server would render its own.
Render FromBooks(const UsageOptions& options, const ClusterBooks& books, sys_seconds now) {
  return [&options, &books, now](
             const std::string& format,
             const std::optional<std::string>& resource) -> Result<std::string> {
    auto query = usage::QueryFrom(options.params, books.zone, now);
    if (!query) return Fail("--" + query.error().message);
    auto output = usage::OutputFrom(format, resource, format != "svg" && options.params.by, *query);
    if (!output) return std::unexpected(output.error());
    auto report = usage::BuildReportOfBooks(books.zone, books.books, books.running, *query);
    if (!report) return std::unexpected(report.error());
    auto rendered = usage::RenderReportAs(*report, *output);
    if (!rendered) return std::unexpected(rendered.error());
    return std::move(rendered->body);
  };
}

// Prints the report and writes the chart: both, or neither and the reason.
int Print(const UsageOptions& options, const Render& render, const std::string& prefix) {
  auto report = render(options.format, std::nullopt);
  if (!report) {
    std::cerr << prefix << report.error().message << "\n";
    return 1;
  }
  if (options.chart) {
    auto svg = render("svg", options.chartResource);
    if (!svg) {
      std::cerr << prefix << "--chart: " << svg.error().message << "\n";
      return 1;
    }
    std::ofstream file(*options.chart, std::ios::binary | std::ios::trunc);
    if (!(file << *svg) || !file.flush()) {
      std::cerr << prefix << "--chart: cannot write " << *options.chart << "\n";
      return 1;
    }
  }
  std::cout << *report;
  return 0;
}

int PrintFromCluster(const UsageOptions& options, const std::string& prefix) {
  auto access = cluster::LoadKubeconfig(*options.kubeconfig, options.context);
  if (!access) {
    std::cerr << prefix << access.error().message << "\n";
    return 1;
  }
  cluster::KubeClient client(std::move(*access));
  const sys_seconds now =
      std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
  auto books = ReadClusterBooks(client, now);
  if (!books) {
    std::cerr << prefix << books.error().message << "\n";
    return 1;
  }
  return Print(options, FromBooks(options, *books, now), prefix);
}

}  // namespace

int RunUsage(const std::vector<std::string>& args, std::string_view command) {
  const std::string prefix = std::string(command) + ": ";
  auto options = ParseUsageArgs(args);
  if (options && options->help) {
    PrintCommandHelp(std::cout, kUsageHelp, command);
    return 0;
  }
  if (!options) {
    std::cerr << prefix << options.error().message << "\n\n";
    PrintCommandHelp(std::cerr, kUsageHelp, command);
    return 2;
  }
  if (options->kubeconfig) return PrintFromCluster(*options, prefix);
  if (Status readable = CheckFilesReadable(options->access); !readable) {
    std::cerr << prefix << readable.error().message << "\n";
    return 1;
  }
  return Print(*options, FromServer(*options), prefix);
}

}  // namespace gpugate::cli
