// `gpugate usage` and `kubectl gpuusage` as an operator runs them: against the real server over
// TLS in local mode (pods admitted, started and deleted through /validate reviews, their usage
// journaled), and against the cluster's GPUQuota objects through a kubeconfig (the stand-in API
// server over TLS). Both sources hold the same figures and must print the same bytes: the golden
// files under tests/testdata/usage-cli/ are shared by both (UPDATE_GOLDEN=1 rewrites them).
//
// The server keeps its real clock, so the pods run on the two days before today (UTC), at fixed
// hours; the outputs name those days, which the golden files write as XXXX-XX-D1 and XXXX-XX-D2.
#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>

#include "cluster/kube_object.h"
#include "common/rfc3339.h"
#include "golden_files.h"
#include "gpugate_process.h"
#include "kubectl.h"
#include "review_builder.h"
#include "standin_cluster.h"
#include "test_paths.h"
#include "usage_pods.h"

namespace gpugate::testing {
namespace {

using nlohmann::json;
using namespace std::chrono;

// The UTC day `shift` days from today, at `hour`:`minute`.
sys_seconds DayAt(int shift, int hour, int minute = 0) {
  return floor<days>(system_clock::now()) + days(shift) + hours(hour) + minutes(minute);
}
std::string Date(int shift) { return FormatRfc3339(DayAt(shift, 0)).substr(0, 10); }

// The report's days as the golden files write them.
std::string Normalized(std::string text) {
  for (const auto& [date, name] :
       {std::pair{Date(-2), "XXXX-XX-D1"}, std::pair{Date(-1), "XXXX-XX-D2"}}) {
    for (size_t at; (at = text.find(date)) != std::string::npos;) text.replace(at, 10, name);
  }
  return text;
}

// team-a: 2 GPUs from D1 20:00 to D2 02:00 (8 GPU-hours on D1, 4 on D2); team-b: 1 GPU
// from D2 10:00 to 11:30 (1.5).
constexpr int64_t kTeamADay1 = 8 * 3'600'000, kTeamADay2 = 4 * 3'600'000, kTeamB = 5'400'000;

// The same figures as the GPUQuota objects of cluster mode keep them: status.usage, a book per
// namespace in milli-GPU-seconds per day.
json GpuQuota(const std::string& ns, const std::string& from, json days, json charges = {}) {
  json book = {{"version", 1},
               {"timeZone", "UTC"},
               {"keys", json::array({{{"namespace", ns},
                                      {"resource", "nvidia.com/gpu"},
                                      {"from", from},
                                      {"days", std::move(days)}}})}};
  return {
      {"apiVersion", "gpugate.io/v1alpha1"},
      {"kind", "GPUQuota"},
      {"metadata", {{"name", "gpugate"}, {"namespace", ns}}},
      {"status",
       {{"charges", charges.is_null() ? json::object() : charges}, {"usage", std::move(book)}}}};
}

// Every (grouping, format) the golden files hold.
struct Output {
  std::string by, format;
  std::string File() const { return "by-" + by + "." + (format == "table" ? "txt" : format); }
};
const Output kOutputs[] = {{"namespace", "table"}, {"namespace", "json"}, {"namespace", "csv"},
                           {"resource", "table"},  {"resource", "json"},  {"resource", "csv"},
                           {"day", "table"},       {"day", "json"},       {"day", "csv"}};

std::vector<std::string> ReportArgs(const Output& o) {
  return {"usage", "--since", Date(-2), "--until", Date(-1), "--by", o.by, "-o", o.format};
}

// The bars of an SVG chart, parsed as XML: "2026-11-26 team-a 8" per segment, in document order.
std::string ChartBars(const std::string& svgFile) {
  Exit parsed = RunProgram(
      "/usr/bin/python3",
      {"-c",
       "import sys, xml.etree.ElementTree as ET\n"
       "for r in ET.parse(sys.argv[1]).getroot().iter('{http://www.w3.org/2000/svg}rect'):\n"
       "    if 'data-day' in r.attrib:\n"
       "        print(r.get('data-day'), r.get('data-namespace'), r.get('data-gpu-hours'))\n",
       svgFile});
  EXPECT_EQ(parsed.code, 0) << parsed.output;
  return parsed.output;
}

// The same figures from the by-day CSV report: "2026-11-26 team-a 8" per nvidia.com/gpu row.
std::string CsvBars(const std::string& csv) {
  std::string out;
  std::regex row("([0-9-]+),([^,]+),nvidia.com/gpu,([0-9.]+),[0-9]+\r\n");
  for (std::sregex_iterator it(csv.begin(), csv.end(), row), end; it != end; ++it) {
    out += (*it)[1].str() + " " + (*it)[2].str() + " " + (*it)[3].str() + "\n";
  }
  return out;
}

TEST(UsageCli, ServerAndClusterRecordsPrintTheSameGoldenReports) {
  GoldenFiles golden(std::filesystem::path(test_paths::kSourceDir) / "tests" / "testdata" /
                     "usage-cli");
  TempDir dir;
  dir.Write("gpugate.yaml",
            "quota: {stateFile: " + dir.File("ledger.journal") + "}\nusage: {timeZone: UTC}\n");
  GpugateServer server({"--config", dir.File("gpugate.yaml")});
  RunUsagePod(server, "team-a", "train", 2, DayAt(-2, 20), DayAt(-1, 2));
  RunUsagePod(server, "team-b", "notebook", 1, DayAt(-1, 10), DayAt(-1, 11, 30));
  const std::vector<std::string> tls = {"--server",
                                        "https://127.0.0.1:" + std::to_string(server.port()),
                                        "--cacert", server.caFile()};

  StandInCluster cluster;
  cluster.api().Create(cluster::GpuQuotaCollectionPath("team-a"),
                       GpuQuota("team-a", Date(-2), {kTeamADay1, kTeamADay2}));
  cluster.api().Create(cluster::GpuQuotaCollectionPath("team-b"),
                       GpuQuota("team-b", Date(-1), {kTeamB}));

  for (const Output& o : kOutputs) {
    SCOPED_TRACE(o.File());
    std::vector<std::string> fromServer = ReportArgs(o), fromCluster = ReportArgs(o);
    fromServer.insert(fromServer.end(), tls.begin(), tls.end());
    fromCluster.insert(fromCluster.end(), {"--kubeconfig", cluster.kubeconfig()});
    Exit served = RunGpugate(fromServer), recorded = RunGpugate(fromCluster);
    ASSERT_EQ(served.code, 0) << served.output;
    ASSERT_EQ(recorded.code, 0) << recorded.output;
    golden.Compare(o.File(), Normalized(served.output));
    EXPECT_EQ(recorded.output, served.output) << "the cluster's records print otherwise";
  }

  // The chart: written beside the table, parsed as XML, its bars the by-day report's figures.
  for (const auto& [source, file] :
       {std::pair{tls, dir.File("served.svg")},
        std::pair{std::vector<std::string>{"--kubeconfig", cluster.kubeconfig()},
                  dir.File("recorded.svg")}}) {
    std::vector<std::string> args = {"usage",  "--since", Date(-2), "--until",
                                     Date(-1), "--chart", file};
    args.insert(args.end(), source.begin(), source.end());
    Exit charted = RunGpugate(args);
    ASSERT_EQ(charted.code, 0) << charted.output;
    EXPECT_EQ(Normalized(charted.output), ReadFile(std::string(test_paths::kSourceDir) +
                                                   "/tests/testdata/usage-cli/by-namespace.txt"));
    std::vector<std::string> csvArgs = ReportArgs({"day", "csv"});
    csvArgs.insert(csvArgs.end(), source.begin(), source.end());
    const std::string bars = ChartBars(file);
    EXPECT_EQ(Normalized(bars),
              "XXXX-XX-D1 team-a 8\nXXXX-XX-D2 team-a 4\nXXXX-XX-D2 team-b 1.5\n");
    EXPECT_EQ(bars, CsvBars(RunGpugate(csvArgs).output));
  }
  EXPECT_EQ(ReadFile(dir.File("served.svg")), ReadFile(dir.File("recorded.svg")));

  // The metrics count the same GPU-seconds as the report (both pods have stopped).
  auto metrics = server.Client()->Get("/metrics");
  ASSERT_TRUE(metrics && metrics->status == 200);
  const json report = json::parse(RunGpugate([&] {
                                    auto args = ReportArgs({"namespace", "json"});
                                    args.insert(args.end(), tls.begin(), tls.end());
                                    return args;
                                  }())
                                      .output);
  ASSERT_EQ(report["rows"].size(), 2u) << report.dump();
  for (const json& row : report["rows"]) {
    const std::string line = "gpugate_usage_gpu_seconds_total{namespace=\"" +
                             row["namespace"].get<std::string>() +
                             "\",resource=\"nvidia.com/gpu\"} " +
                             std::to_string(row["gpuSeconds"].get<int64_t>()) + "\n";
    EXPECT_NE(metrics->body.find(line), std::string::npos) << line << metrics->body;
  }
}

// A running pod (a charge with `started`) counts from its start up to now; books in different
// time zones are refused; the plugin link runs `usage`.
TEST(UsageCli, ClusterRecordsCountRunningPodsAndRefuseMixedZones) {
  StandInCluster cluster;
  const json charges = {
      {"trainer", json::array({{{"uid", "uid-trainer"},
                                {"admitted", FormatRfc3339(system_clock::now() - hours(3))},
                                {"started", FormatRfc3339(system_clock::now() - hours(2))},
                                {"amounts", {{"nvidia.com/gpu", "1"}}}}})},
      {"pending", json::array({{{"uid", "uid-pending"},
                                {"admitted", FormatRfc3339(system_clock::now() - hours(3))},
                                {"amounts", {{"nvidia.com/gpu", "4"}}}}})}};
  cluster.api().Create(cluster::GpuQuotaCollectionPath("team-c"),
                       GpuQuota("team-c", Date(-1), {kTeamB}, charges));
  const std::string link =
      (std::filesystem::path(test_paths::kGpugateBinary).parent_path() / "kubectl-gpuusage")
          .string();
  Exit run = RunProgram(link, {"--kubeconfig", cluster.kubeconfig(), "--since", Date(-1), "--until",
                               Date(0), "-o", "json"});
  ASSERT_EQ(run.code, 0) << run.output;
  const json rows = json::parse(run.output)["rows"];
  ASSERT_EQ(rows.size(), 1u) << run.output;
  // 1.5 GPU-hours recorded, and 2 hours of the running pod so far; the pending one adds nothing.
  const int64_t seconds = rows[0]["gpuSeconds"].get<int64_t>();
  EXPECT_GE(seconds, 5400 + 7200);
  EXPECT_LT(seconds, 5400 + 7200 + 600) << run.output;

  json berlin = GpuQuota("team-d", Date(-1), {kTeamB});
  berlin["status"]["usage"]["timeZone"] = "Europe/Berlin";
  cluster.api().Create(cluster::GpuQuotaCollectionPath("team-d"), berlin);
  Exit mixed = RunProgram(link, {"--kubeconfig", cluster.kubeconfig()});
  EXPECT_EQ(mixed.code, 1);
  EXPECT_EQ(mixed.output,
            "kubectl gpuusage: usage books in different time zones: team-c keeps UTC, team-d "
            "keeps Europe/Berlin; a report adds up the local days of one zone\n");
}

// With mutual TLS, /usage listed in tls.openPaths answers a caller without a certificate, while
// /quota (not listed) still refuses one.
TEST(UsageCli, UsageInOpenPathsNeedsNoClientCertificate) {
  TempDir dir;
  Exit made = RunGpugate({"certs", "--out", dir.path(), "--host", "127.0.0.1", "--client", "ops"});
  ASSERT_EQ(made.code, 0) << made.output;
  dir.Write("gpugate.yaml", "tls: {openPaths: [/usage]}\n");
  GpugateServer server(
      {"--config", dir.File("gpugate.yaml"), "--tls-client-ca", dir.File("ca.crt")});
  const std::string url = "https://127.0.0.1:" + std::to_string(server.port());
  Exit usage = RunGpugate({"usage", "--server", url, "--cacert", server.caFile(), "-o", "csv"});
  EXPECT_EQ(usage.code, 0) << usage.output;
  EXPECT_EQ(usage.output, "namespace,resource,gpuHours,gpuSeconds\r\n");
  Exit quota = RunGpugate({"quota", "--server", url, "--cacert", server.caFile()});
  EXPECT_EQ(quota.code, 1) << quota.output;
  EXPECT_NE(quota.output.find("HTTP 403 Forbidden"), std::string::npos) << quota.output;
}

// kubectl runs kubectl-gpuusage from PATH with the arguments after `gpuusage`: the same report
// as `gpugate usage`, and the help under the plugin's name.
TEST(UsageCli, RunsAsKubectlPlugin) {
  const Result<Kubectl>& kubectl = UsableKubectl();
  if (!kubectl) GTEST_SKIP() << kubectl.error().message;
  StandInCluster cluster;
  cluster.api().Create(cluster::GpuQuotaCollectionPath("team-b"),
                       GpuQuota("team-b", Date(-1), {kTeamB}));
  const std::filesystem::path bin = std::filesystem::path(test_paths::kGpugateBinary).parent_path();
  const char* path = std::getenv("PATH");
  const std::string searchPath =
      bin.string() + ":" + (path ? path : "/usr/local/bin:/usr/bin:/bin");
  const std::vector<std::string> args = {
      "--kubeconfig", cluster.kubeconfig(), "--since", Date(-1), "--until", Date(-1), "-o", "csv"};
  std::vector<std::string> viaKubectl = {"PATH=" + searchPath, kubectl->path, "gpuusage"};
  viaKubectl.insert(viaKubectl.end(), args.begin(), args.end());
  std::vector<std::string> direct = {"usage"};
  direct.insert(direct.end(), args.begin(), args.end());
  Exit plugin = RunProgram("/usr/bin/env", viaKubectl);
  EXPECT_EQ(plugin.code, 0) << plugin.output;
  EXPECT_EQ(plugin.output, RunGpugate(direct).output);
  EXPECT_EQ(Normalized(plugin.output),
            "namespace,resource,gpuHours,gpuSeconds\r\nteam-b,nvidia.com/gpu,1.5,5400\r\n");

  Exit help =
      RunProgram("/usr/bin/env", {"PATH=" + searchPath, kubectl->path, "gpuusage", "--help"});
  EXPECT_EQ(help.code, 0) << help.output;
  EXPECT_TRUE(help.output.starts_with("Usage: kubectl gpuusage [--period YYYY-MM")) << help.output;
}

}  // namespace
}  // namespace gpugate::testing
