// GPU-hour budgets through the real server over TLS, in local mode: the kubelet's status updates
// start a pod's usage, a finished pod's usage is journaled with its release, running pods count
// up to now, and the budget's refusal survives a SIGKILL (the journal holds the start and the
// accrual, and the restarted gpugate rebuilds both). A rolling window of hours and startTimes in
// the past stand in for an injected clock: the server keeps its real one.
#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "common/rfc3339.h"
#include "gpugate_process.h"
#include "review_builder.h"

namespace gpugate::testing {
namespace {

using nlohmann::json;
using std::chrono::minutes;

json Pod(const std::string& name) {
  json pod = GpuPod(name, json::array({{{"nvidia.com/gpu", "1"}}}));
  pod["metadata"]["uid"] = "uid-" + name;
  return pod;
}

json CreateReview(const std::string& name) {
  return MakeReview(Pod(name), {.uid = "create-" + name});
}

// The kubelet's status update of pod `name`, started `ago` before now, in `phase`.
json StatusReview(const std::string& name, minutes ago, const std::string& phase) {
  json pod = Pod(name);
  pod["status"] = {{"phase", phase},
                   {"startTime", FormatRfc3339(std::chrono::system_clock::now() - ago)}};
  json review = MakeReview(pod, {.operation = "UPDATE", .uid = "status-" + name + "-" + phase});
  review["request"]["subResource"] = "status";
  review["request"]["oldObject"] = Pod(name);
  return review;
}

json Send(const GpugateServer& server, const json& review) {
  auto res = server.Client()->Post("/validate", review.dump(), "application/json");
  EXPECT_TRUE(res && res->status == 200);
  return res ? json::parse(res->body)["response"] : json::object();
}

// What the user sees: "allowed", "allowed; Warning: ..." or the refusal's message.
std::string Seen(const json& response) {
  if (!response.value("allowed", false)) return response["status"].value("message", "?");
  std::string out = "allowed";
  for (const auto& w : response.value("warnings", json::array())) {
    out += "; Warning: " + w.get<std::string>();
  }
  return out;
}

constexpr char kConfig[] =
    "usage:\n"
    "  budgets:\n"
    "  - {pattern: team-a, period: 'rolling:3h', gpuHours: {nvidia.com/gpu: 2}, warnAt: 50}\n";

TEST(Budget, RunningAndFinishedPodsSpendTheBudgetAcrossASigkill) {
  TempDir dir;
  dir.Write("gpugate.yaml",
            "quota: {stateFile: " + dir.File("ledger.journal") + "}\n" + std::string(kConfig));
  {
    GpugateServer server({"--config", dir.File("gpugate.yaml")});
    ASSERT_EQ(Seen(Send(server, CreateReview("trainer"))), "allowed");
    // Scheduled, not started: accrues nothing yet.
    ASSERT_EQ(Seen(Send(server, CreateReview("early"))), "allowed");
    // The kubelet reports trainer running since 90 minutes ago: 1.5 of 2 GPU-hours, past 50%.
    ASSERT_EQ(Seen(Send(server, StatusReview("trainer", minutes(90), "Running"))), "allowed");
    const std::string nearing = Seen(Send(server, CreateReview("second")));
    EXPECT_TRUE(nearing.starts_with(
        "allowed; Warning: GPU-hour budget 75% spent: team-a, used: nvidia.com/gpu=1.5"))
        << nearing;
    // second ran for 90 minutes and finished: its usage goes to the book with its release.
    ASSERT_EQ(Seen(Send(server, StatusReview("second", minutes(90), "Succeeded"))), "allowed");
    server.Kill();
  }
  GpugateServer restarted({"--config", dir.File("gpugate.yaml")});
  // 1.5 GPU-hours of second, from the journal, and 1.5 of trainer, running since its journaled
  // start: the budget is spent.
  const std::string refused = Seen(Send(restarted, CreateReview("third")));
  EXPECT_TRUE(refused.starts_with("exceeded GPU-hour budget: team-a, used: nvidia.com/gpu=3"))
      << refused;
  EXPECT_NE(refused.find("limited: nvidia.com/gpu=2 GPU-hours in the last 3h"), std::string::npos)
      << refused;
  // Another namespace has no budget.
  json other = MakeReview(Pod("other"), {.ns = "team-b", .uid = "create-other"});
  other["request"]["object"]["metadata"]["namespace"] = "team-b";
  EXPECT_EQ(Seen(Send(restarted, other)), "allowed");
}

TEST(Budget, WarnModeAdmitsWithTheRefusalAsAWarning) {
  TempDir dir;
  dir.Write("gpugate.yaml", std::string(kConfig) + "modes: {rules: {budget: warn}}\n");
  GpugateServer server({"--config", dir.File("gpugate.yaml")});
  ASSERT_EQ(Seen(Send(server, CreateReview("trainer"))), "allowed");
  ASSERT_EQ(Seen(Send(server, StatusReview("trainer", minutes(150), "Failed"))), "allowed");
  const std::string warned = Seen(Send(server, CreateReview("next")));
  EXPECT_TRUE(warned.starts_with(
      "allowed; Warning: exceeded GPU-hour budget: team-a, used: nvidia.com/gpu=2.5"))
      << warned;
}

// The number after `series` in a /metrics body ("" when the series is absent).
std::string Sample(const std::string& metrics, const std::string& series) {
  const size_t at = metrics.find("\n" + series + " ");
  if (at == std::string::npos) return "";
  const size_t from = at + series.size() + 2;
  return metrics.substr(from, metrics.find('\n', from) - from);
}

// Once team-a has spent its budget, GPU pods created at once from several connections are each
// refused exactly once, and none is charged; team-b, created in the same burst, has no budget and
// is admitted and charged pod for pod.
TEST(Budget, ConcurrentCreatesAgainstASpentBudgetAreEachRefusedOnceAndChargeNothing) {
  TempDir dir;
  dir.Write("gpugate.yaml",
            "quota: {stateFile: " + dir.File("ledger.journal") + "}\n" + std::string(kConfig));
  GpugateServer server({"--config", dir.File("gpugate.yaml")});
  ASSERT_EQ(Seen(Send(server, CreateReview("trainer"))), "allowed");
  ASSERT_EQ(Seen(Send(server, StatusReview("trainer", minutes(150), "Running"))), "allowed");

  constexpr int kThreads = 4, kPerThread = 10;
  std::atomic<int> refused{0}, admitted{0}, other{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      auto client = server.Client();
      for (int i = 0; i < kPerThread; ++i) {
        const std::string name = "burst-" + std::to_string(t) + "-" + std::to_string(i);
        const bool teamA = i % 2 == 0;
        json review =
            MakeReview(Pod(name), {.ns = teamA ? "team-a" : "team-b", .uid = "create-" + name});
        review["request"]["object"]["metadata"]["namespace"] = teamA ? "team-a" : "team-b";
        auto res = client->Post("/validate", review.dump(), "application/json");
        if (!res || res->status != 200) {
          ++other;
          continue;
        }
        const std::string seen = Seen(json::parse(res->body)["response"]);
        if (teamA &&
            seen.starts_with("exceeded GPU-hour budget: team-a, used: nvidia.com/gpu=2.5")) {
          ++refused;
        } else if (!teamA && seen == "allowed") {
          ++admitted;
        } else {
          ++other;
          ADD_FAILURE() << name << ": " << seen;
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  constexpr int kEach = kThreads * kPerThread / 2;
  EXPECT_EQ(refused.load(), kEach);
  EXPECT_EQ(admitted.load(), kEach);
  EXPECT_EQ(other.load(), 0);

  auto metrics = server.Client()->Get("/metrics");
  ASSERT_TRUE(metrics && metrics->status == 200);
  EXPECT_EQ(Sample(metrics->body,
                   "gpugate_admission_decisions_total{route=\"validate\",decision=\"denied\","
                   "reason=\"budget-spent\"}"),
            std::to_string(kEach))
      << metrics->body;
  EXPECT_EQ(Sample(metrics->body, "gpugate_policy_violations_total{rule=\"budget\",mode=\"deny\"}"),
            std::to_string(kEach))
      << metrics->body;
  // team-a holds only the trainer; team-b every pod of the burst.
  EXPECT_EQ(
      Sample(metrics->body, "gpugate_quota_used{namespace=\"team-a\",resource=\"nvidia.com/gpu\"}"),
      "1");
  EXPECT_EQ(
      Sample(metrics->body, "gpugate_quota_used{namespace=\"team-b\",resource=\"nvidia.com/gpu\"}"),
      std::to_string(kEach));
}

// "2026-11-27": the UTC day `shift` days from today.
std::string Day(int shift) {
  const auto day = std::chrono::floor<std::chrono::days>(std::chrono::system_clock::now()) +
                   std::chrono::days(shift);
  return FormatRfc3339(day).substr(0, 10);
}

TEST(Budget, UsageReportAndMetricsAgreeOnAFinishedPod) {
  TempDir dir;
  dir.Write("gpugate.yaml", kConfig);
  GpugateServer server({"--config", dir.File("gpugate.yaml")});
  ASSERT_EQ(Seen(Send(server, CreateReview("trainer"))), "allowed");
  ASSERT_EQ(Seen(Send(server, StatusReview("trainer", minutes(90), "Running"))), "allowed");
  ASSERT_EQ(Seen(Send(server, StatusReview("trainer", minutes(90), "Succeeded"))), "allowed");

  // Yesterday and today hold the 90 minutes, whatever the hour.
  auto res = server.Client()->Get("/usage?since=" + Day(-1) + "&until=" + Day(0) +
                                  "&by=namespace&namespace=team-a");
  ASSERT_TRUE(res && res->status == 200) << (res ? res->body : "no answer");
  const json report = json::parse(res->body);
  EXPECT_EQ(report["timeZone"], "UTC");
  EXPECT_EQ(report["by"], "namespace");
  ASSERT_EQ(report["rows"].size(), 1u) << report.dump();
  const json& row = report["rows"][0];
  EXPECT_EQ(row["namespace"], "team-a");
  EXPECT_EQ(row["resource"], "nvidia.com/gpu");
  // 90 minutes from the kubelet's startTime to the finishing status update's arrival.
  const int64_t seconds = row["gpuSeconds"].get<int64_t>();
  EXPECT_GE(seconds, 5400);
  EXPECT_LT(seconds, 5400 + 600) << "the pod ran 90 minutes, not " << seconds << " s";

  // The counter gives the same figure: the pod has finished, so it no longer grows.
  auto metrics = server.Client()->Get("/metrics");
  ASSERT_TRUE(metrics && metrics->status == 200);
  const std::string line =
      "gpugate_usage_gpu_seconds_total{namespace=\"team-a\","
      "resource=\"nvidia.com/gpu\"} " +
      std::to_string(seconds) + "\n";
  EXPECT_NE(metrics->body.find(line), std::string::npos) << metrics->body;
  EXPECT_NE(metrics->body.find("gpugate_budget_gpu_hours{namespace=\"team-a\",resource=\"nvidia."
                               "com/gpu\",period=\"rolling:3h\"} 2\n"),
            std::string::npos)
      << metrics->body;
  EXPECT_NE(metrics->body.find("gpugate_budget_spent_gpu_hours{namespace=\"team-a\",resource=\""
                               "nvidia.com/gpu\",period=\"rolling:3h\"} 1.5"),
            std::string::npos)
      << metrics->body;

  // A bad query is refused with the parameter at fault.
  auto bad = server.Client()->Get("/usage?by=colour");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400);
  EXPECT_TRUE(bad->body.starts_with("by: ")) << bad->body;
  for (const auto& [query, reason] :
       {std::pair{"format=yaml", "format: must be json, table, csv or svg\n"},
        std::pair{
            "format=svg&by=namespace",
            "by: a chart (format svg) draws GPU-hours per day; give by=day or leave it out\n"},
        std::pair{"format=csv&resource=nvidia.com/gpu",
                  "resource: only a chart (format svg) draws one resource\n"},
        std::pair{"format=svg&since=2026-01-01&until=2026-12-31",
                  "format: svg: a chart covers at most 62 days\n"}}) {
    auto refused = server.Client()->Get(std::string("/usage?") + query);
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->status, 400) << query;
    EXPECT_EQ(refused->body, reason) << query;
  }
}

}  // namespace
}  // namespace gpugate::testing
