// `gpugate quota` shows, beside each namespace's holdings, the GPU-hours it has spent this
// period: against its budget where one is configured, and this month's spend otherwise. From a
// running gpugate (the real server over TLS in local mode, pods started and deleted through
// /validate reviews) and from the cluster's GPUQuota objects. Golden files under
// tests/testdata/quota-spend/ (UPDATE_GOLDEN=1 rewrites them).
//
// The server keeps its real clock, so the pods run in the last three hours: on the first of a
// month before 03:00 UTC part of that is last month, and the test is skipped.
#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "cluster/kube_object.h"
#include "common/rfc3339.h"
#include "golden_files.h"
#include "gpugate_process.h"
#include "review_builder.h"
#include "standin_cluster.h"
#include "test_paths.h"
#include "usage_pods.h"

namespace gpugate::testing {
namespace {

using nlohmann::json;
using namespace std::chrono;

constexpr char kConfig[] =
    "quota:\n"
    "  namespaces:\n"
    "    team-a: {nvidia.com/gpu: 4}\n"
    "usage:\n"
    "  timeZone: UTC\n"
    "  budgets:\n"
    "  - {pattern: team-a, period: month, gpuHours: {nvidia.com/gpu: 10}}\n";

// The GPUQuota object of `ns` as cluster mode keeps it: today's GPU-hours in its usage book,
// `held` GPUs charged to a pod that has not started, and its limit.
json GpuQuota(const std::string& ns, int64_t milliGpuSecondsToday, int held) {
  const std::string today = FormatRfc3339(floor<days>(system_clock::now())).substr(0, 10);
  json status = {{"usage",
                  {{"version", 1},
                   {"timeZone", "UTC"},
                   {"keys", json::array({{{"namespace", ns},
                                          {"resource", "nvidia.com/gpu"},
                                          {"from", today},
                                          {"days", {milliGpuSecondsToday}}}})}}},
                 {"charges", json::object()}};
  if (held > 0) {
    status["charges"]["queued"] =
        json::array({{{"uid", "uid-queued"},
                      {"admitted", FormatRfc3339(system_clock::now())},
                      {"amounts", {{"nvidia.com/gpu", std::to_string(held)}}}}});
    status["hard"] = {{"nvidia.com/gpu", "4"}};
  }
  return {{"apiVersion", "gpugate.io/v1alpha1"},
          {"kind", "GPUQuota"},
          {"metadata", {{"name", "gpugate"}, {"namespace", ns}}},
          {"status", std::move(status)}};
}

TEST(QuotaSpend, HoldingsAndTheGpuHoursSpentBesideThem) {
  const sys_seconds base = floor<hours>(system_clock::now());
  if (floor<days>(base - hours(3)) < floor<days>(base) &&
      year_month_day(floor<days>(base)).day() == day(1)) {
    GTEST_SKIP() << "the pods' three hours would begin last month";
  }
  GoldenFiles golden(std::filesystem::path(test_paths::kSourceDir) / "tests" / "testdata" /
                     "quota-spend");
  TempDir dir;
  dir.Write("gpugate.yaml", kConfig);
  GpugateServer server({"--config", dir.File("gpugate.yaml")});
  // team-a: 2 GPUs for 2 hours (4 of its 10 GPU-hours) and a 1-GPU pod not yet started;
  // team-b: 1 GPU for 90 minutes, no budget.
  RunUsagePod(server, "team-a", "train", 2, base - hours(3), base - hours(1));
  AdmitUsagePod(server, "team-a", "queued", 1);
  RunUsagePod(server, "team-b", "notebook", 1, base - hours(2), base - minutes(30));
  const std::vector<std::string> tls = {"--server",
                                        "https://127.0.0.1:" + std::to_string(server.port()),
                                        "--cacert", server.caFile()};

  StandInCluster cluster;
  cluster.api().Create(cluster::GpuQuotaCollectionPath("team-a"),
                       GpuQuota("team-a", 4 * 3'600'000, 1));
  cluster.api().Create(cluster::GpuQuotaCollectionPath("team-b"), GpuQuota("team-b", 5'400'000, 0));

  const struct {
    std::string file;
    std::vector<std::string> args;
  } kRuns[] = {
      {"served.txt", tls},
      {"served.json", {"-o", "json"}},
      {"served-team-b.txt", {"-n", "team-b"}},
      {"recorded.txt", {"--kubeconfig", cluster.kubeconfig()}},
      {"recorded.json", {"--kubeconfig", cluster.kubeconfig(), "-o", "json"}},
  };
  for (const auto& run : kRuns) {
    std::vector<std::string> args = {"quota"};
    args.insert(args.end(), run.args.begin(), run.args.end());
    if (run.file.starts_with("served") && run.args != tls) {
      args.insert(args.end(), tls.begin(), tls.end());
    }
    Exit quota = RunGpugate(args);
    EXPECT_EQ(quota.code, 0) << run.file << ": " << quota.output;
    golden.Compare(run.file, quota.output);
  }
}

}  // namespace
}  // namespace gpugate::testing
