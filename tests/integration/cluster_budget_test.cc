// GPU-hour budgets in cluster mode, through real gpugate replicas over TLS against the stand-in
// API server: a pod admitted by one replica runs and finishes, the usage goes to its namespace's
// GPUQuota with the release, and every replica then refuses the namespace's next GPU pod with
// the budget's figures. startTimes in the past stand in for an injected clock: the replicas keep
// their real ones.
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
#include "standin_cluster.h"

namespace gpugate::testing {
namespace {

using nlohmann::json;
using std::chrono::minutes;

constexpr char kPods[] = "/api/v1/namespaces/team-a/pods";

json Create(const std::string& name, const std::string& uid) {
  json pod = GpuPod(name, json::array({{{"nvidia.com/gpu", "1"}}}));
  pod["metadata"]["uid"] = uid;
  return MakeReview(pod, {.uid = "req-" + uid});
}

// What the user sees: "allowed", "allowed; Warning: ..." or the refusal's message.
std::string Seen(GpugateServer& replica, const json& review) {
  auto res = replica.Client()->Post("/validate", review.dump(), "application/json");
  if (!res || res->status != 200) return "no answer";
  json response = json::parse(res->body)["response"];
  if (!response.value("allowed", false)) return response["status"].value("message", "?");
  std::string out = "allowed";
  for (const auto& w : response.value("warnings", json::array())) {
    out += "; Warning: " + w.get<std::string>();
  }
  return out;
}

std::string Ago(minutes ago) { return FormatRfc3339(std::chrono::system_clock::now() - ago); }

// team-a's GPUQuota object in the stand-in API.
constexpr char kRecord[] = "/apis/gpugate.io/v1alpha1/namespaces/team-a/gpuquotas/gpugate";

// Pod "trainer" (one GPU) admitted by `replica`, then shown by the API running since `ago`
// before now; returns once the reconciler has recorded its start on its charge.
void StartTrainer(StandInCluster& cluster, GpugateServer& replica, minutes ago) {
  ASSERT_EQ(Seen(replica, Create("trainer", "uid-trainer")), "allowed");
  json pod = GpuPod("trainer", json::array({{{"nvidia.com/gpu", "1"}}}));
  pod["metadata"]["uid"] = "uid-trainer";
  pod["status"] = {{"phase", "Running"}, {"startTime", Ago(ago)}};
  cluster.api().Create(kPods, pod);
  ASSERT_TRUE(Eventually(
      [&] {
        json charges = cluster.api().Get(kRecord)["status"]["charges"];
        return charges.contains("trainer") && charges["trainer"][0].contains("started");
      },
      kClusterWait))
      << cluster.api().Get(kRecord).dump();
}

// The budget refusals a replica has counted on /metrics (-1 when it cannot be read).
int64_t BudgetRefusals(GpugateServer& replica) {
  auto metrics = replica.Client()->Get("/metrics");
  if (!metrics || metrics->status != 200) return -1;
  const std::string series =
      "\ngpugate_admission_decisions_total{route=\"validate\",decision=\"denied\","
      "reason=\"budget-spent\"} ";
  const size_t at = metrics->body.find(series);
  return at == std::string::npos ? 0 : std::stoll(metrics->body.substr(at + series.size()));
}

TEST(ClusterBudget, AFinishedPodsUsageSpendsTheBudgetForEveryReplica) {
  StandInCluster cluster(
      "usage:\n"
      "  budgets:\n"
      "  - {pattern: team-a, period: 'rolling:3h', gpuHours: {nvidia.com/gpu: 2}, warnAt: 50}\n");
  GpugateServer& a = cluster.AddReplica();
  GpugateServer& b = cluster.AddReplica();
  ASSERT_NO_FATAL_FAILURE(StartTrainer(cluster, a, minutes(150)));
  // It finished half an hour ago, after 2 hours: its usage goes to the book with its release.
  json pod = cluster.api().Get(std::string(kPods) + "/trainer");
  pod["status"]["phase"] = "Succeeded";
  pod["status"]["containerStatuses"] = json::array(
      {{{"name", "c0"}, {"state", {{"terminated", {{"finishedAt", Ago(minutes(30))}}}}}}});
  cluster.api().Update(std::string(kPods) + "/trainer", pod);
  ASSERT_TRUE(Eventually([&] { return cluster.api().Get(kRecord)["status"].contains("usage"); },
                         kClusterWait))
      << cluster.api().Get(kRecord).dump();
  EXPECT_TRUE(cluster.api().Get(kRecord)["status"]["charges"].empty());

  const std::string spent =
      "exceeded GPU-hour budget: team-a, used: nvidia.com/gpu=2, limited: nvidia.com/gpu=2 "
      "GPU-hours in the last 3h; usage older than 3h stops counting";
  for (GpugateServer* replica : {&a, &b}) {
    EXPECT_TRUE(Eventually([&] { return Seen(*replica, Create("next", "uid-next")) == spent; },
                           kClusterWait))
        << Seen(*replica, Create("next", "uid-next"));
  }
  // A CPU pod is not affected.
  EXPECT_EQ(Seen(b, MakeReview(GpuPod("web", json::array({{{"cpu", "1"}}})))), "allowed");
  // GET /usage reports it from the shared record, in either replica (yesterday and today, UTC).
  const std::string today = Ago(minutes(0)).substr(0, 10);
  const std::string yesterday = Ago(minutes(24 * 60)).substr(0, 10);
  auto usage = b.Client()->Get("/usage?since=" + yesterday + "&until=" + today);
  ASSERT_TRUE(usage && usage->status == 200) << (usage ? usage->body : "no answer");
  EXPECT_NE(usage->body.find("\"team-a\""), std::string::npos) << usage->body;

  // A burst at both replicas at once: every GPU pod refused exactly once, none charged.
  const int64_t before = BudgetRefusals(a) + BudgetRefusals(b);
  constexpr int kThreads = 4, kPerThread = 6;
  std::atomic<int> refused{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      GpugateServer& replica = t % 2 == 0 ? a : b;
      for (int i = 0; i < kPerThread; ++i) {
        const std::string name = "burst-" + std::to_string(t) + "-" + std::to_string(i);
        const std::string seen = Seen(replica, Create(name, "uid-" + name));
        if (seen == spent) {
          ++refused;
        } else {
          ADD_FAILURE() << name << ": " << seen;
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(refused.load(), kThreads * kPerThread);
  EXPECT_TRUE(cluster.api().Get(kRecord)["status"]["charges"].empty())
      << cluster.api().Get(kRecord).dump();
  // Each refusal counted once, by the replica that gave it.
  EXPECT_EQ(BudgetRefusals(a) + BudgetRefusals(b) - before, kThreads * kPerThread);
}

// A GPUBudget object a cluster admin creates applies before the config's budget, in every
// replica, from its watch.
TEST(ClusterBudget, AGpuBudgetObjectAppliesBeforeTheConfigsBudget) {
  StandInCluster cluster(
      "usage:\n"
      "  budgets:\n"
      "  - {pattern: '*', period: month, gpuHours: {nvidia.com/gpu: 100}}\n");
  GpugateServer& a = cluster.AddReplica();
  GpugateServer& b = cluster.AddReplica();
  ASSERT_NO_FATAL_FAILURE(StartTrainer(cluster, a, minutes(5)));
  // 5 GPU-minutes, well within the config's 100 GPU-hours: the next pod is admitted.
  EXPECT_EQ(Seen(b, Create("second", "uid-second")), "allowed");

  // A day's window of 0.001 GPU-hours (3.6 GPU-seconds), for team-a only.
  cluster.api().Create("/apis/gpugate.io/v1alpha1/gpubudgets",
                       {{"apiVersion", "gpugate.io/v1alpha1"},
                        {"kind", "GPUBudget"},
                        {"metadata", {{"name", "team-a"}}},
                        {"spec",
                         {{"namespaces", {"team-a"}},
                          {"period", "rolling:24h"},
                          {"gpuHours", {{"nvidia.com/gpu", "0.001"}}}}}});
  for (GpugateServer* replica : {&a, &b}) {
    EXPECT_TRUE(Eventually(
        [&] {
          return Seen(*replica, Create("third", "uid-third"))
              .starts_with("exceeded GPU-hour budget: team-a, used: nvidia.com/gpu=");
        },
        kClusterWait))
        << Seen(*replica, Create("third", "uid-third"));
    const std::string refusal = Seen(*replica, Create("third", "uid-third"));
    EXPECT_NE(refusal.find("limited: nvidia.com/gpu=0.001 GPU-hours in the last 24h"),
              std::string::npos)
        << refusal;
  }
  // Another namespace keeps the config's budget.
  EXPECT_EQ(Seen(a, MakeReview(GpuPod("other", json::array({{{"nvidia.com/gpu", "1"}}})),
                               {.ns = "team-b", .uid = "req-other"})),
            "allowed");
}

}  // namespace
}  // namespace gpugate::testing
