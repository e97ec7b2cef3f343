// Quota through the real server: atomic check-and-charge under concurrency, releases, pods
// being deleted, dry runs, and a ledger that survives SIGKILL.
#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <fstream>
#include <latch>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "common/rfc3339.h"
#include "gpugate_process.h"
#include "review_builder.h"
#include "server_metrics.h"
#include "support/eventually.h"

namespace gpugate::testing {
namespace {

using nlohmann::json;

std::string QuotaConfig(const std::string& stateFile, int limit) {
  std::string yaml = "quota:\n";
  if (!stateFile.empty()) yaml += "  stateFile: " + stateFile + "\n";
  yaml += "  namespaces:\n    team-a:\n      nvidia.com/gpu: " + std::to_string(limit) + "\n";
  return yaml;
}

json CreateReview(const std::string& name, const std::string& uid, int gpus, bool dryRun = false) {
  json pod = GpuPod(name, json::array({{{"nvidia.com/gpu", std::to_string(gpus)}}}));
  pod["metadata"]["uid"] = uid;
  json review = MakeReview(pod, {.uid = "req-" + uid});
  review["request"]["dryRun"] = dryRun;
  return review;
}

json DeleteReview(const std::string& name, const std::string& uid) {
  json pod = GpuPod(name, json::array({{{"nvidia.com/gpu", "1"}}}));
  pod["metadata"]["uid"] = uid;
  json review = MakeReview(nullptr, {.operation = "DELETE", .uid = "del-" + uid});
  review["request"]["name"] = name;
  review["request"]["oldObject"] = pod;
  return review;
}

json StatusReview(const std::string& name, const std::string& uid, const std::string& phase) {
  json pod = GpuPod(name, json::array({{{"nvidia.com/gpu", "1"}}}));
  pod["metadata"]["uid"] = uid;
  pod["status"] = {{"phase", phase}};
  json review = MakeReview(pod, {.operation = "UPDATE", .uid = "st-" + uid});
  review["request"]["subResource"] = "status";
  return review;
}

// nullopt when no answer came back (connection refused or cut).
std::optional<json> Send(const GpugateServer& server, const json& review) {
  auto res = server.Client()->Post("/validate", review.dump(), "application/json");
  if (!res || res->status != 200) return std::nullopt;
  return json::parse(res->body);
}

bool Allowed(const json& response) { return response["response"]["allowed"].get<bool>(); }

// Whether `server` allows `review`; a missing answer fails the test.
bool AllowedBy(const GpugateServer& server, const json& review) {
  auto response = Send(server, review);
  if (!response) {
    ADD_FAILURE() << "no answer for " << review["request"]["uid"];
    return false;
  }
  return Allowed(*response);
}

// used/hard of nvidia.com/gpu in team-a as GET /quota reports it; -1 when absent.
std::pair<double, double> Usage(const GpugateServer& server) {
  auto res = server.Client()->Get("/quota?namespace=team-a");
  EXPECT_TRUE(res && res->status == 200);
  if (!res) return {-1, -1};
  json body = json::parse(res->body);
  for (const auto& ns : body["namespaces"]) {
    if (ns["namespace"] != "team-a") continue;
    const json& r = ns["resources"].value("nvidia.com/gpu", json::object());
    return {r.value("used", -1.0), r.value("hard", -1.0)};
  }
  return {-1, -1};
}

TEST(Quota, FortyConcurrentCreatesAgainstLimitTenAdmitExactlyTen) {
  TempDir dir;
  dir.Write("gpugate.yaml", QuotaConfig("", 10));
  GpugateServer server({"--config", dir.File("gpugate.yaml")});
  std::latch start(40);
  std::atomic<int> allowed = 0, denied = 0, failed = 0;
  std::vector<std::thread> threads;
  for (int i = 0; i < 40; ++i) {
    threads.emplace_back([&, i] {
      auto client = server.Client();  // its own connection, so requests truly overlap
      json review = CreateReview("p" + std::to_string(i), "u" + std::to_string(i), 1);
      start.arrive_and_wait();
      auto res = client->Post("/validate", review.dump(), "application/json");
      if (!res || res->status != 200) return void(++failed);
      json body = json::parse(res->body);
      if (Allowed(body)) return void(++allowed);
      ++denied;
      EXPECT_EQ(body["response"]["status"]["message"],
                "exceeded quota: team-a, requested: nvidia.com/gpu=1, used: nvidia.com/gpu=10, "
                "limited: nvidia.com/gpu=10");
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(allowed, 10);
  EXPECT_EQ(denied, 30);
  EXPECT_EQ(failed, 0);
  EXPECT_EQ(Usage(server), std::make_pair(10.0, 10.0));
}

TEST(Quota, ReleasesOnDeleteAndTerminalPhaseNeverOnDryRun) {
  TempDir dir;
  dir.Write("gpugate.yaml", QuotaConfig("", 4));
  GpugateServer server({"--config", dir.File("gpugate.yaml")});
  ASSERT_TRUE(AllowedBy(server, CreateReview("a", "ua", 2)));
  ASSERT_TRUE(AllowedBy(server, CreateReview("b", "ub", 2)));
  EXPECT_EQ(Usage(server).first, 4);
  // The same pod admitted again (an apiserver retry) is not charged twice.
  ASSERT_TRUE(AllowedBy(server, CreateReview("a", "ua", 2)));
  EXPECT_EQ(Usage(server).first, 4);
  // A dry run is checked (and refused here) but never charged.
  EXPECT_FALSE(AllowedBy(server, CreateReview("c", "uc", 1, /*dryRun=*/true)));
  EXPECT_TRUE(AllowedBy(server, DeleteReview("a", "ua")));
  EXPECT_EQ(Usage(server).first, 2);
  EXPECT_TRUE(AllowedBy(server, CreateReview("c", "uc", 1, /*dryRun=*/true)));
  EXPECT_EQ(Usage(server).first, 2);
  // A running pod's status update releases nothing; Succeeded releases exactly its charge.
  EXPECT_TRUE(AllowedBy(server, StatusReview("b", "ub", "Running")));
  EXPECT_EQ(Usage(server).first, 2);
  EXPECT_TRUE(AllowedBy(server, StatusReview("b", "ub", "Succeeded")));
  EXPECT_EQ(Usage(server).first, 0);
  EXPECT_EQ(Usage(server).second, 4);
}

double Handoffs(const GpugateServer& server) {
  return MetricValue(server, "gpugate_http_blocking_handoffs_total");
}

// A review leaves the serving thread only when it reaches a ledger that may wait: with a journal,
// a GPU pod's charge (dry runs included) and a release; nothing else, and nothing at all on a
// ledger kept in memory only.
TEST(Quota, OnlyReviewsThatMayWaitOnTheJournalAreHandedToABlockingThread) {
  TempDir dir;
  dir.Write("journaled.yaml", QuotaConfig(dir.File("ledger"), 4));
  GpugateServer server({"--config", dir.File("journaled.yaml")});
  json cpuPod = GpuPod("cpu", json::array({json::object()}));
  EXPECT_TRUE(AllowedBy(server, MakeReview(cpuPod, {.uid = "req-cpu"})));
  EXPECT_TRUE(AllowedBy(server, StatusReview("a", "ua", "Running")));
  json dryDelete = DeleteReview("a", "ua");
  dryDelete["request"]["dryRun"] = true;
  EXPECT_TRUE(AllowedBy(server, dryDelete));
  EXPECT_EQ(Handoffs(server), 0);
  EXPECT_TRUE(AllowedBy(server, CreateReview("a", "ua", 1)));
  EXPECT_TRUE(AllowedBy(server, CreateReview("b", "ub", 1, /*dryRun=*/true)));
  EXPECT_TRUE(AllowedBy(server, DeleteReview("a", "ua")));
  EXPECT_EQ(Handoffs(server), 3);

  dir.Write("memory.yaml", QuotaConfig("", 4));
  GpugateServer memoryOnly({"--config", dir.File("memory.yaml")});
  EXPECT_TRUE(AllowedBy(memoryOnly, CreateReview("a", "ua", 1)));
  EXPECT_TRUE(AllowedBy(memoryOnly, DeleteReview("a", "ua")));
  EXPECT_EQ(Handoffs(memoryOnly), 0);
}

TEST(Quota, DuplicateCreateNeverErasesTheRunningPodsCharge) {
  TempDir dir;
  dir.Write("gpugate.yaml", QuotaConfig("", 4));
  GpugateServer server({"--config", dir.File("gpugate.yaml")});
  ASSERT_TRUE(AllowedBy(server, CreateReview("a", "running", 3)));
  // `kubectl create` of another pod named "a": admitted here, then refused by the apiserver
  // (AlreadyExists). It must not replace the running pod's 3 GPUs with its 1.
  ASSERT_TRUE(AllowedBy(server, CreateReview("a", "duplicate", 1)));
  EXPECT_EQ(Usage(server).first, 4);
  EXPECT_FALSE(AllowedBy(server, CreateReview("b", "ub", 1)));
  // Deleting the pod that holds the name frees everything charged under it.
  EXPECT_TRUE(AllowedBy(server, DeleteReview("a", "running")));
  EXPECT_EQ(Usage(server).first, 0);
}

// Sends creates from several threads until SIGKILL cuts them off. Returns the pods whose
// admission was acknowledged as allowed, and how many requests got no answer.
struct Burst {
  std::set<std::string> acknowledged;
  int unanswered = 0;
};

Burst CreateUntilKilled(GpugateServer& server, const std::string& prefix, int killAfter) {
  Burst burst;
  std::mutex mu;
  std::atomic<int> sent = 0;
  std::atomic<bool> stop = false;
  std::atomic<int> running = 4;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      struct Done {
        std::atomic<int>& n;
        ~Done() { --n; }
      } done{running};
      auto client = server.Client();
      for (int i = 0; !stop; ++i) {
        std::string name = prefix + std::to_string(t) + "-" + std::to_string(i);
        ++sent;
        auto res = client->Post("/validate", CreateReview(name, "uid-" + name, 1).dump(),
                                "application/json");
        std::lock_guard lock(mu);
        if (!res || res->status != 200) {
          ++burst.unanswered;
          return;  // the server is gone
        }
        if (Allowed(json::parse(res->body))) burst.acknowledged.insert(name);
      }
    });
  }
  while (sent < killAfter && running > 0) std::this_thread::yield();
  server.Kill();
  stop = true;
  for (auto& t : threads) t.join();
  return burst;
}

TEST(Quota, SigkillDuringABurstLosesNoChargeAndInventsNone) {
  TempDir dir;
  const std::string state = dir.File("state/ledger.journal");
  dir.Write("gpugate.yaml", QuotaConfig(state, 100000));
  std::set<std::string> acknowledged;
  int unanswered = 0;
  for (int round = 0; round < 3; ++round) {
    GpugateServer server({"--config", dir.File("gpugate.yaml")});
    const int killAfter = 20 + 37 * round;
    Burst burst = CreateUntilKilled(server, "r" + std::to_string(round) + "-", killAfter);
    // The kill landed mid-burst: most requests sent before it were answered.
    EXPECT_GE(burst.acknowledged.size(), static_cast<size_t>(killAfter - 4));
    acknowledged.insert(burst.acknowledged.begin(), burst.acknowledged.end());
    unanswered += burst.unanswered;
  }
  GpugateServer restarted({"--config", dir.File("gpugate.yaml")});
  double used = Usage(restarted).first;
  // Every acknowledged charge survived; at most the requests cut off mid-flight were added.
  EXPECT_GE(used, acknowledged.size());
  EXPECT_LE(used, acknowledged.size() + unanswered);
  // Each acknowledged pod is in the ledger: admitting it again adds nothing.
  for (const std::string& name : acknowledged) {
    ASSERT_TRUE(AllowedBy(restarted, CreateReview(name, "uid-" + name, 1)));
  }
  EXPECT_EQ(Usage(restarted).first, used);
}

TEST(Quota, SigkillAfterQuietLedgerRestoresItExactly) {
  TempDir dir;
  const std::string state = dir.File("ledger.journal");
  dir.Write("gpugate.yaml", QuotaConfig(state, 8));
  {
    GpugateServer server({"--config", dir.File("gpugate.yaml")});
    for (int i = 0; i < 6; ++i) {
      std::string n = "q" + std::to_string(i);
      ASSERT_TRUE(AllowedBy(server, CreateReview(n, "uid-" + n, 1)));
    }
    ASSERT_TRUE(AllowedBy(server, DeleteReview("q0", "uid-q0")));
    server.Kill();
  }
  // A torn record (a write cut off by the crash) at the end of the journal is ignored.
  {
    std::ofstream torn(state, std::ios::binary | std::ios::app);
    torn << std::string("\x40\x00\x00\x00\x12\x34", 6);
  }
  GpugateServer restarted({"--config", dir.File("gpugate.yaml")});
  EXPECT_EQ(Usage(restarted), std::make_pair(5.0, 8.0));
  // Exactly 3 more fit.
  for (int i = 0; i < 3; ++i) {
    std::string n = "more" + std::to_string(i);
    ASSERT_TRUE(AllowedBy(restarted, CreateReview(n, "uid-" + n, 1)));
  }
  EXPECT_FALSE(AllowedBy(restarted, CreateReview("over", "uid-over", 1)));
}

// A graceful DELETE of pod `name`, running on a node: the API server will keep it terminating
// for `grace` seconds, and gpugate counts it until deletionTimestamp + grace (2 x grace from now).
json GracefulDeleteReview(const std::string& name, const std::string& uid, int grace) {
  json review = DeleteReview(name, uid);
  review["request"]["uid"] = "graceful-" + uid;
  review["request"]["oldObject"]["spec"]["nodeName"] = "gpu-node-1";
  review["request"]["oldObject"]["spec"]["terminationGracePeriodSeconds"] = 30;
  review["request"]["options"] = {{"kind", "DeleteOptions"}, {"gracePeriodSeconds", grace}};
  return review;
}

// The kubelet's final DELETE of a pod being deleted: grace period 0.
json FinalDeleteReview(const std::string& name, const std::string& uid) {
  json review = DeleteReview(name, uid);
  review["request"]["uid"] = "final-" + uid;
  json& old = review["request"]["oldObject"];
  old["spec"]["nodeName"] = "gpu-node-1";
  old["metadata"]["deletionTimestamp"] =
      FormatRfc3339(std::chrono::system_clock::now() + std::chrono::hours(1));
  old["metadata"]["deletionGracePeriodSeconds"] = 3600;
  review["request"]["options"] = {{"kind", "DeleteOptions"}, {"gracePeriodSeconds", 0}};
  return review;
}

// The message a user sees for the pod refused while another terminates at the limit.
std::string Refusal(const GpugateServer& server, const json& review) {
  auto response = Send(server, review);
  if (!response) return "no answer";
  if (Allowed(*response)) return "allowed";
  return (*response)["response"]["status"]["message"];
}

TEST(Quota, ATerminatingPodKeepsItsChargeAcrossASigkillUntilItsFinalDelete) {
  TempDir dir;
  dir.Write("gpugate.yaml", QuotaConfig(dir.File("ledger.journal"), 2));
  const std::string full =
      "exceeded quota: team-a, requested: nvidia.com/gpu=1, used: nvidia.com/gpu=2, "
      "limited: nvidia.com/gpu=2";
  {
    GpugateServer server({"--config", dir.File("gpugate.yaml")});
    ASSERT_TRUE(AllowedBy(server, CreateReview("train", "uid-train", 2)));
    // Deleted with an hour's grace to checkpoint: it holds its GPUs meanwhile.
    ASSERT_TRUE(AllowedBy(server, GracefulDeleteReview("train", "uid-train", 3600)));
    EXPECT_EQ(Usage(server), std::make_pair(2.0, 2.0));
    EXPECT_EQ(Refusal(server, CreateReview("next", "uid-next", 1)), full);
    server.Kill();
  }
  GpugateServer restarted({"--config", dir.File("gpugate.yaml")});
  EXPECT_EQ(Usage(restarted), std::make_pair(2.0, 2.0));
  EXPECT_EQ(Refusal(restarted, CreateReview("next", "uid-next", 1)), full);
  // The kubelet's final DELETE once the pod has stopped: released at once.
  ASSERT_TRUE(AllowedBy(restarted, FinalDeleteReview("train", "uid-train")));
  EXPECT_EQ(Usage(restarted), std::make_pair(0.0, 2.0));
  EXPECT_EQ(Refusal(restarted, CreateReview("next", "uid-next", 1)), "allowed");
  // A pod never scheduled (no spec.nodeName) is removed at once by the API server: so is its
  // charge, whatever grace period the DELETE asked for.
  json unscheduled = GracefulDeleteReview("next", "uid-next", 3600);
  unscheduled["request"]["oldObject"]["spec"].erase("nodeName");
  ASSERT_TRUE(AllowedBy(restarted, unscheduled));
  EXPECT_EQ(Usage(restarted), std::make_pair(0.0, 2.0));
}

// A pod stuck terminating (its node lost, no final DELETE ever comes) stops counting once
// deletionTimestamp + grace has passed, as ResourceQuota stops counting it, even across a
// SIGKILL: the journal keeps the release time, not just the charge.
TEST(Quota, APodStuckTerminatingStopsCountingAfterItsGracePeriodEvenAcrossASigkill) {
  TempDir dir;
  dir.Write("gpugate.yaml", QuotaConfig(dir.File("ledger.journal"), 2));
  {
    GpugateServer server({"--config", dir.File("gpugate.yaml")});
    ASSERT_TRUE(AllowedBy(server, CreateReview("stuck", "uid-stuck", 2)));
    ASSERT_TRUE(AllowedBy(server, GracefulDeleteReview("stuck", "uid-stuck", 1)));
    server.Kill();
  }
  GpugateServer restarted({"--config", dir.File("gpugate.yaml")});
  EXPECT_TRUE(Eventually([&] { return Usage(restarted).first == 0; }, std::chrono::seconds(10)))
      << Usage(restarted).first;
  EXPECT_EQ(Refusal(restarted, CreateReview("next", "uid-next", 2)), "allowed");
}

}  // namespace
}  // namespace gpugate::testing
