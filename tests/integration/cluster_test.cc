// Cluster mode end to end: several real `gpugate serve` replicas against one stand-in Kubernetes
// API server, sharing quota through it.
#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <latch>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "cluster/gpu_quota_record.h"
#include "gpugate_process.h"
#include "review_builder.h"
#include "standin/standin.h"
#include "standin_cluster.h"

namespace gpugate::testing {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr char kPods[] = "/api/v1/namespaces/team-a/pods";

// How quickly the replicas give up on a charge whose pod never appears, and how often they
// reconcile. Two seconds of grace leave a burst of 60 admissions time to be stored.
constexpr char kUsualTiming[] = "  reservationGraceSeconds: 2\n  reconcileIntervalSeconds: 1\n";

// A stand-in API server with a ResourceQuota limiting team-a to `limit` GPUs; `timing` is the
// replicas' cluster.reservationGrace* and cluster.reconcileInterval* keys, `api` the stand-in's
// options.
class Cluster : public StandInCluster {
 public:
  explicit Cluster(int limit, const std::string& timing = kUsualTiming,
                   StandInApiServer::Options api = {})
      : StandInCluster({.timing = timing, .api = std::move(api)}) {
    LimitGpus("team-a", limit);
  }

  // Starts a replica whose token the API refuses, so it can never sync.
  GpugateServer& AddUnsyncedReplica() {
    std::string config = ReadFile(dir().File("kubeconfig"));
    config.replace(config.find("stand-in-token"), 14, "wrong-token");
    dir().Write("bad-kubeconfig", config);
    dir().Write("bad.yaml",
                "cluster:\n  enabled: true\n  kubeconfig: " + dir().File("bad-kubeconfig") +
                    "\nquota:\n  namespaces:\n" + "    team-a: {nvidia.com/gpu: 4}\n");
    return StartReplica("bad.yaml");
  }

  // What the apiserver does after admission allowed a pod: store it.
  void StorePod(const std::string& name, const std::string& uid) {
    json pod = GpuPod(name, json::array({{{"nvidia.com/gpu", "1"}}}));
    pod["metadata"]["uid"] = uid;
    pod["status"] = {{"phase", "Running"}};
    api().Create(kPods, pod);
  }
};

json Create(const std::string& name, const std::string& uid) {
  json pod = GpuPod(name, json::array({{{"nvidia.com/gpu", "1"}}}));
  pod["metadata"]["uid"] = uid;
  return MakeReview(pod, {.uid = "req-" + uid});
}

// nvidia.com/gpu used in team-a as a replica's GET /quota reports it; -1 on no answer.
double Used(GpugateServer& replica) {
  auto res = replica.Client()->Get("/quota?namespace=team-a");
  if (!res || res->status != 200) return -1;
  json body = json::parse(res->body);
  for (const auto& ns : body["namespaces"]) {
    return ns["resources"].value("nvidia.com/gpu", json::object()).value("used", 0.0);
  }
  return 0;
}

// 60 creates at once, spread round-robin over the replicas; the allowed pods are then stored,
// as the apiserver would. Returns how many were allowed.
int Burst(Cluster& cluster, const std::string& prefix) {
  std::latch start(60);
  std::atomic<int> allowed = 0, failed = 0;
  std::mutex mu;
  std::vector<std::pair<std::string, std::string>> admitted;
  std::vector<std::thread> threads;
  for (int i = 0; i < 60; ++i) {
    GpugateServer& replica = *cluster.replicas()[i % cluster.replicas().size()];
    threads.emplace_back([&, i] {
      auto client = replica.Client();
      std::string name = prefix + std::to_string(i), uid = prefix + "uid-" + std::to_string(i);
      json review = Create(name, uid);
      start.arrive_and_wait();
      auto res = client->Post("/validate", review.dump(), "application/json");
      if (!res || res->status != 200) return void(++failed);
      if (!json::parse(res->body)["response"]["allowed"].get<bool>()) return;
      ++allowed;
      std::lock_guard lock(mu);
      admitted.emplace_back(name, uid);
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failed, 0);
  for (const auto& [name, uid] : admitted) cluster.StorePod(name, uid);
  return allowed;
}

TEST(ClusterMode, TwoReplicasAdmitExactlyTheLimit) {
  Cluster cluster(10);
  cluster.AddReplica();
  cluster.AddReplica();
  EXPECT_EQ(Burst(cluster, "two-"), 10);
  for (auto& r : cluster.replicas()) {
    EXPECT_TRUE(Eventually([&] { return Used(*r) == 10; }, kClusterWait)) << Used(*r);
  }
}

TEST(ClusterMode, ThreeReplicasAdmitExactlyTheLimit) {
  // Writes take 20 ms to apply, as on a real etcd, so the replicas' first writes are in flight
  // together and race for the record's version; without it one replica's group commit can finish
  // before the others' writes arrive, and no race happens.
  Cluster cluster(10, kUsualTiming, {.writeLatency = std::chrono::milliseconds(20)});
  for (int i = 0; i < 3; ++i) cluster.AddReplica();
  EXPECT_EQ(Burst(cluster, "three-"), 10);
  EXPECT_GT(cluster.api().conflicts(), 0);  // the replicas really raced on one record
}

TEST(ClusterMode, SucceededPodFreesItsChargeWithoutAWebhookCall) {
  Cluster cluster(2);
  GpugateServer& replica = cluster.AddReplica();
  auto res =
      replica.Client()->Post("/validate", Create("job-1", "uid-job-1").dump(), "application/json");
  ASSERT_TRUE(res && json::parse(res->body)["response"]["allowed"].get<bool>());
  cluster.StorePod("job-1", "uid-job-1");
  ASSERT_TRUE(Eventually([&] { return Used(replica) == 1; }, kClusterWait));
  json pod = cluster.api().Get(std::string(kPods) + "/job-1");
  pod["status"]["phase"] = "Succeeded";
  cluster.api().Update(std::string(kPods) + "/job-1", pod);
  EXPECT_TRUE(Eventually([&] { return Used(replica) == 0; }, std::chrono::seconds(5)));
}

TEST(ClusterMode, BrokenWatchAndGoneRecoverWithoutLosingOrDoubleCounting) {
  // Each pod is stored right after its admission, so a short grace drops nothing real; it lets
  // the check at the end wait out the grace in well under a second.
  Cluster cluster(10, "  reservationGrace: 500ms\n  reconcileInterval: 100ms\n");
  GpugateServer& replica = cluster.AddReplica();
  for (int i = 0; i < 4; ++i) {
    std::string name = "w" + std::to_string(i), uid = "uid-w" + std::to_string(i);
    auto res = replica.Client()->Post("/validate", Create(name, uid).dump(), "application/json");
    ASSERT_TRUE(res && json::parse(res->body)["response"]["allowed"].get<bool>());
    cluster.StorePod(name, uid);
  }
  ASSERT_TRUE(Eventually([&] { return Used(replica) == 4; }, kClusterWait));
  // A watch cut mid-stream; meanwhile one pod finishes.
  cluster.api().BreakWatches();
  json pod = cluster.api().Get(std::string(kPods) + "/w0");
  pod["status"]["phase"] = "Failed";
  cluster.api().Update(std::string(kPods) + "/w0", pod);
  EXPECT_TRUE(Eventually([&] { return Used(replica) == 3; }, kClusterWait));
  // The history is gone (410 on resume), and another pod is deleted during the gap.
  const int listsBefore = cluster.api().requests("GET");
  const int watchesBefore = cluster.api().watchesOpened();
  cluster.api().ExpireHistory();
  cluster.api().BreakWatches();
  cluster.api().Delete(std::string(kPods) + "/w1");
  EXPECT_TRUE(Eventually([&] { return Used(replica) == 2; }, kClusterWait));
  // The informers really resumed: new watches, and relists after the 410.
  EXPECT_GT(cluster.api().watchesOpened(), watchesBefore);
  EXPECT_GE(cluster.api().requests("GET") - listsBefore, 3);
  // Settled: exactly the two running pods, counted once each, also after the reservation grace
  // has passed for every charge and a reconcile pass has had its chance to get it wrong. The
  // event that proves it, without sleeping: a charge admitted now whose pod never appears is
  // dropped by the first reconcile pass after its grace, the grace of every charge before it.
  auto sentinel = replica.Client()->Post("/validate", Create("never-stored", "uid-never").dump(),
                                         "application/json");
  ASSERT_TRUE(sentinel && json::parse(sentinel->body)["response"]["allowed"].get<bool>());
  ASSERT_TRUE(Eventually([&] { return Used(replica) == 3; }, kClusterWait));
  ASSERT_TRUE(Eventually([&] { return Used(replica) != 3; }, kClusterWait));
  EXPECT_EQ(Used(replica), 2);
}

// A cluster bigger than one list page (500 pods): the replica lists in pages, and the API server
// has compacted its history between two of them, so the list's continue token has expired (410).
// The replica lists again from the first page and charges exactly the running GPU pods.
TEST(ClusterMode, AListWhoseContinueTokenExpiredIsStartedAgainAndChargesEveryGpuPodOnce) {
  Cluster cluster(100);
  // 1,200 pods in team-a; one in 50 asks for a GPU (24), and 4 of those have finished.
  size_t loaded = cluster.api().CreateMany(kPods, 1200, [](size_t i) {
    bool gpu = i % 50 == 0;
    json pod =
        GpuPod("pod-" + std::to_string(i), json::array({{{gpu ? "nvidia.com/gpu" : "cpu", "1"}}}));
    pod["metadata"]["uid"] = "uid-" + std::to_string(i);
    pod["status"] = {{"phase", gpu && i % 300 == 0 ? "Succeeded" : "Running"}};
    return pod;
  });
  ASSERT_EQ(loaded, 1200u);
  cluster.api().ExpireContinueTokens(1);
  GpugateServer& replica = cluster.AddReplica();
  EXPECT_EQ(cluster.api().continuesExpired(), 1);
  EXPECT_TRUE(Eventually([&] { return Used(replica) == 20; }, kClusterWait)) << Used(replica);
  json record = cluster.api().Get("/apis/gpugate.io/v1alpha1/namespaces/team-a/gpuquotas/gpugate");
  ASSERT_TRUE(record.is_object());
  EXPECT_EQ(record["status"]["charges"].size(), 20u);
  EXPECT_FALSE(record["status"]["charges"].contains("pod-0"));  // Succeeded
  EXPECT_EQ(record["status"]["charges"]["pod-50"][0]["uid"], "uid-50");
}

// kube-apiserver closes connections idle for 90 s with a TLS close_notify (here, 200 ms). Before
// the fix, the first GPU pod on each such pooled connection was refused with a 500 ("PUT
// .../gpuquotas/gpugate: connection lost while writing").
TEST(ClusterMode, ConnectionsTheApiServerClosedWhileIdleRefuseNoPod) {
  Cluster cluster(10, kUsualTiming, {.idleConnectionTimeout = std::chrono::milliseconds(200)});
  GpugateServer& replica = cluster.AddReplica();
  StandInApiServer& api = cluster.api();
  // Every connection but the watches' has sat idle and been closed by the API server.
  auto allIdleClosed = [&] {
    return api.idleConnectionsClosed() >= api.connectionsAccepted() - api.watchesOpen();
  };
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(Eventually(allIdleClosed, kClusterWait))
        << api.idleConnectionsClosed() << " of " << api.connectionsAccepted();
    std::string name = "idle-" + std::to_string(i), uid = "uid-idle-" + std::to_string(i);
    auto res = replica.Client()->Post("/validate", Create(name, uid).dump(), "application/json");
    ASSERT_TRUE(res && res->status == 200);
    json response = json::parse(res->body)["response"];
    EXPECT_TRUE(response["allowed"].get<bool>()) << response.dump();
    cluster.StorePod(name, uid);
  }
  EXPECT_TRUE(Eventually([&] { return Used(replica) == 3; }, kClusterWait)) << Used(replica);
}

TEST(ClusterMode, ThrottledGpuQuotaWriteIsRetriedAndThePodAdmitted) {
  Cluster cluster(10);
  GpugateServer& replica = cluster.AddReplica();
  StandInApiServer& api = cluster.api();
  // API Priority and Fairness throttles the replica's first GPUQuota request once.
  api.InjectFailures({.pathPrefix = "/apis/gpugate.io/v1alpha1/namespaces/team-a/",
                      .status = 429,
                      .message = "too many requests, please try again later",
                      .reason = "TooManyRequests",
                      .retryAfter = "1"});
  auto res = replica.Client()->Post("/validate", Create("throttled", "uid-throttled").dump(),
                                    "application/json");
  ASSERT_TRUE(res && res->status == 200);
  json response = json::parse(res->body)["response"];
  EXPECT_TRUE(response["allowed"].get<bool>()) << response.dump();
  EXPECT_EQ(api.injected(), 1);
  cluster.StorePod("throttled", "uid-throttled");
  EXPECT_TRUE(Eventually([&] { return Used(replica) == 1; }, kClusterWait)) << Used(replica);
}

// The API server holds every GPUQuota request for 30 s (a slow etcd). 20 GPU creates are sent
// with ?timeout=3s, as the API server sends the webhook's timeoutSeconds, by callers that give up
// after 3 s as it does; meanwhile /healthz and /readyz are probed as the kubelet would (1 s).
TEST(ClusterMode, SlowGpuQuotaWritesAreRefusedBeforeTheCallerGivesUpAndProbesStayPrompt) {
  Cluster cluster(10);
  GpugateServer& replica = cluster.AddReplica();
  StandInApiServer& api = cluster.api();
  api.HoldRequests({.pathPrefix = "/apis/gpugate.io/", .delay = std::chrono::seconds(30)});

  std::atomic<bool> creating = true;
  std::atomic<int> probes = 0, probesAnswered = 0;
  std::thread prober([&] {
    auto client = replica.Client();
    client->set_read_timeout(std::chrono::seconds(1));
    while (creating) {
      for (const char* path : {"/healthz", "/readyz"}) {
        ++probes;
        auto res = client->Get(path);
        if (res && res->status == 200) ++probesAnswered;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  });
  constexpr int kCreates = 20;
  std::latch start(kCreates);
  std::vector<json> answers(kCreates);
  std::vector<std::thread> threads;
  for (int i = 0; i < kCreates; ++i) {
    threads.emplace_back([&, i] {
      auto client = replica.Client();
      client->set_read_timeout(std::chrono::seconds(3));  // the API server's patience
      json review = Create("held-" + std::to_string(i), "uid-held-" + std::to_string(i));
      start.arrive_and_wait();
      auto res = client->Post("/validate?timeout=3s", review.dump(), "application/json");
      if (res && res->status == 200) answers[i] = json::parse(res->body)["response"];
    });
  }
  for (auto& t : threads) t.join();
  creating = false;
  prober.join();

  for (int i = 0; i < kCreates; ++i) {
    SCOPED_TRACE("create " + std::to_string(i));
    if (!answers[i].is_object()) {
      ADD_FAILURE() << "no answer within the caller's 3 s";
      continue;
    }
    EXPECT_FALSE(answers[i]["allowed"].get<bool>());
    EXPECT_EQ(answers[i]["status"]["code"], 504);
    EXPECT_EQ(answers[i]["status"]["reason"], "Timeout");
    std::string message = answers[i]["status"]["message"];
    EXPECT_TRUE(
        message.starts_with("gpugate could not record the quota charge before the API "
                            "server's timeout for this review: "))
        << message;
  }
  EXPECT_GT(api.held(), 0);
  EXPECT_GT(probes, 0);
  EXPECT_EQ(probesAnswered, probes.load()) << "probes unanswered within 1 s";

  // The held writes land once the API server recovers, for pods that were never created; the
  // reconciler drops them after the grace, and the next create is admitted.
  api.ReleaseHeld();
  EXPECT_TRUE(Eventually([&] { return Used(replica) == 0; }, kClusterWait)) << Used(replica);
  auto res = replica.Client()->Post("/validate?timeout=3s", Create("after", "uid-after").dump(),
                                    "application/json");
  ASSERT_TRUE(res && res->status == 200);
  EXPECT_TRUE(json::parse(res->body)["response"]["allowed"].get<bool>()) << res->body;
}

// A namespace's GPUQuota record is bounded in size (cluster.maxGpuQuotaBytes, below etcd's 1.5 MiB
// request limit). When it is full, the next GPU pod is refused with a message saying so, not an
// opaque API error, and a release makes room again.
// A DELETE review of `pod` as stored (`old`), with DeleteOptions' gracePeriodSeconds when given.
json DeleteOf(const json& old, std::optional<int> grace) {
  json review = MakeReview(
      nullptr, {.operation = "DELETE", .uid = "del-" + old["metadata"]["uid"].get<std::string>()});
  review["request"]["name"] = old["metadata"]["name"];
  review["request"]["oldObject"] = old;
  review["request"]["options"] = {{"kind", "DeleteOptions"}};
  if (grace) review["request"]["options"]["gracePeriodSeconds"] = *grace;
  return review;
}

bool AllowedBy(GpugateServer& replica, const json& review) {
  auto res = replica.Client()->Post("/validate", review.dump(), "application/json");
  return res && res->status == 200 && json::parse(res->body)["response"]["allowed"].get<bool>();
}

// A graceful DELETE does not free the charge: the pod keeps its GPUs while it terminates, and the
// pod watch frees them once it is gone. The kubelet's final DELETE (grace 0) frees them at once,
// and so does the DELETE of a pod never scheduled.
TEST(ClusterMode, APodBeingDeletedKeepsItsChargeUntilItsFinalDelete) {
  Cluster cluster(1);
  GpugateServer& replica = cluster.AddReplica();
  ASSERT_TRUE(AllowedBy(replica, Create("train", "uid-train")));
  json pod = GpuPod("train", json::array({{{"nvidia.com/gpu", "1"}}}));
  pod["metadata"]["uid"] = "uid-train";
  pod["spec"]["nodeName"] = "gpu-node-1";
  pod["status"] = {{"phase", "Running"}};
  pod = cluster.api().Create(kPods, pod);
  ASSERT_TRUE(Eventually([&] { return Used(replica) == 1; }, kClusterWait));

  ASSERT_TRUE(AllowedBy(replica, DeleteOf(pod, 30)));
  // What the API server does then: the pod stays, terminating.
  pod["metadata"]["deletionTimestamp"] =
      FormatRfc3339(std::chrono::system_clock::now() + std::chrono::seconds(30));
  pod["metadata"]["deletionGracePeriodSeconds"] = 30;
  pod = cluster.api().Update(std::string(kPods) + "/train", pod);
  EXPECT_EQ(Used(replica), 1);
  EXPECT_FALSE(AllowedBy(replica, Create("next", "uid-next")));

  // The kubelet's final DELETE: released at once, before the pod watch reports it gone.
  ASSERT_TRUE(AllowedBy(replica, DeleteOf(pod, 0)));
  EXPECT_TRUE(AllowedBy(replica, Create("next", "uid-next")));
  cluster.api().Delete(std::string(kPods) + "/train");

  // A pod never scheduled is removed at once: its DELETE releases at once too.
  json pending = GpuPod("next", json::array({{{"nvidia.com/gpu", "1"}}}));
  pending["metadata"]["uid"] = "uid-next";
  pending["status"] = {{"phase", "Pending"}};
  ASSERT_TRUE(AllowedBy(replica, DeleteOf(pending, std::nullopt)));
  EXPECT_TRUE(AllowedBy(replica, Create("third", "uid-third")));
}

TEST(ClusterMode, ANamespaceWhoseGpuQuotaIsFullRefusesTheNextPodSayingSo) {
  // A long grace, from now: the record's charges below have no pods, and must stay for the
  // test's length.
  const std::string now = cluster::FormatRfc3339(std::chrono::system_clock::now());
  Cluster cluster(100000, "  reservationGraceSeconds: 600\n  maxGpuQuotaBytes: 65536\n");
  json charges = json::object();
  json record = {{"apiVersion", "gpugate.io/v1alpha1"},
                 {"kind", "GPUQuota"},
                 {"metadata", {{"name", "gpugate"}}},
                 {"status", {{"charges", charges}}}};
  for (int i = 0; record.dump().size() < 63000; ++i) {
    std::string name = "filler-" + std::to_string(i);
    record["status"]["charges"][name] = json::array(
        {{{"uid", "uid-" + name}, {"admitted", now}, {"amounts", {{"nvidia.com/gpu", "1"}}}}});
  }
  cluster.api().Create("/apis/gpugate.io/v1alpha1/namespaces/team-a/gpuquotas", record);
  GpugateServer& replica = cluster.AddReplica();

  int admitted = 0;
  json refusal;
  for (int i = 0; i < 100 && refusal.is_null(); ++i) {
    std::string name = "late-" + std::to_string(i);
    auto res =
        replica.Client()->Post("/validate", Create(name, "uid-" + name).dump(), "application/json");
    ASSERT_TRUE(res && res->status == 200);
    json response = json::parse(res->body)["response"];
    response["allowed"].get<bool>() ? void(++admitted) : void(refusal = response);
  }
  EXPECT_GT(admitted, 0);  // the record had room for a few
  ASSERT_FALSE(refusal.is_null()) << "never refused";
  EXPECT_EQ(refusal["status"]["code"], 403);
  std::string message = refusal["status"]["message"];
  EXPECT_TRUE(
      message.starts_with("gpugate cannot record another GPU pod in team-a: its GPUQuota "
                          "holds "))
      << message;
  EXPECT_NE(message.find(" bytes, and one more would pass cluster.maxGpuQuotaBytes (65536; a "
                         "Kubernetes object must stay under etcd's 1.5 MiB request limit). Room "
                         "returns as the namespace's GPU pods finish or are deleted"),
            std::string::npos)
      << message;
  EXPECT_LE(cluster.api()
                .Get("/apis/gpugate.io/v1alpha1/namespaces/team-a/gpuquotas/gpugate")
                .dump()
                .size(),
            65536u + 200);  // what gpugate wrote, plus the metadata the API server adds

  // A pod deleted frees its charge, and with it room for the next.
  json old = GpuPod("filler-0", json::array({{{"nvidia.com/gpu", "1"}}}));
  old["metadata"]["uid"] = "uid-filler-0";
  json del = MakeReview(nullptr, {.operation = "DELETE", .uid = "del-filler-0"});
  del["request"]["name"] = "filler-0";
  del["request"]["oldObject"] = old;
  auto deleted = replica.Client()->Post("/validate", del.dump(), "application/json");
  ASSERT_TRUE(deleted && deleted->status == 200);
  auto res =
      replica.Client()->Post("/validate", Create("after", "uid-after").dump(), "application/json");
  ASSERT_TRUE(res && res->status == 200);
  EXPECT_TRUE(json::parse(res->body)["response"]["allowed"].get<bool>()) << res->body;
}

TEST(ClusterMode, BeforeTheFirstSyncLimitedNamespacesFailClosed) {
  Cluster cluster(10);
  GpugateServer& replica = cluster.AddUnsyncedReplica();
  auto ready = replica.Client()->Get("/readyz");
  ASSERT_TRUE(ready);
  EXPECT_EQ(ready->status, 503);
  auto res =
      replica.Client()->Post("/validate", Create("early", "uid-early").dump(), "application/json");
  ASSERT_TRUE(res && res->status == 200);
  json response = json::parse(res->body)["response"];
  EXPECT_FALSE(response["allowed"].get<bool>());
  EXPECT_EQ(response["status"]["code"], 500);
  EXPECT_EQ(response["status"]["reason"], "InternalError");  // not a refusal by the rules
  EXPECT_NE(response["status"]["message"].get<std::string>().find(
                "has not finished its first sync with the Kubernetes API"),
            std::string::npos)
      << response.dump();
  // A pod that asks for no GPU is not held up.
  json web = GpuPod("web", json::array({{{"cpu", "1"}}}));
  auto plain = replica.Client()->Post("/validate", MakeReview(web).dump(), "application/json");
  ASSERT_TRUE(plain);
  EXPECT_TRUE(json::parse(plain->body)["response"]["allowed"].get<bool>());
}

TEST(ClusterMode, QuotaCommandReadsTheClusterDirectly) {
  Cluster cluster(10);
  cluster.AddReplica();
  ASSERT_EQ(Burst(cluster, "cli-"), 10);
  Exit json =
      RunGpugate({"quota", "--kubeconfig", cluster.kubeconfig(), "-n", "team-a", "-o", "json"});
  ASSERT_EQ(json.code, 0) << json.output;
  EXPECT_EQ(
      json.output,
      R"({"namespaces":[{"namespace":"team-a","resources":{"nvidia.com/gpu":{"used":10,"hard":10}}}]})"
      "\n");
  Exit table = RunGpugate({"quota", "--kubeconfig", cluster.kubeconfig()});
  ASSERT_EQ(table.code, 0) << table.output;
  EXPECT_NE(table.output.find("team-a"), std::string::npos) << table.output;
  EXPECT_NE(table.output.find("100%"), std::string::npos) << table.output;
}

TEST(ClusterMode, KilledReplicaRestartsIntoTheSameLedger) {
  Cluster cluster(10);
  cluster.AddReplica();
  cluster.AddReplica();
  EXPECT_EQ(Burst(cluster, "kill-"), 10);
  cluster.replicas()[0]->Kill();
  cluster.replicas().erase(cluster.replicas().begin());
  GpugateServer& restarted = cluster.AddReplica();
  GpugateServer& survivor = *cluster.replicas()[0];
  EXPECT_TRUE(
      Eventually([&] { return Used(restarted) == 10 && Used(survivor) == 10; }, kClusterWait));
  auto a = restarted.Client()->Get("/quota"), b = survivor.Client()->Get("/quota");
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->body, b->body);
  // And the restarted replica enforces the shared limit at once.
  auto res = restarted.Client()->Post("/validate", Create("one-more", "uid-more").dump(),
                                      "application/json");
  ASSERT_TRUE(res);
  EXPECT_FALSE(json::parse(res->body)["response"]["allowed"].get<bool>());
}

// The cluster ledger starts its watch threads before the server does; SIGTERM must still reach
// the graceful stop, not kill the process through one of them.
TEST(ClusterMode, SigtermStopsAReplicaCleanly) {
  Cluster cluster(10);
  GpugateServer& replica = cluster.AddReplica();
  EXPECT_EQ(replica.Stop(), 0) << replica.Logs();
  EXPECT_NE(replica.Logs().find("\"msg\":\"stopped\""), std::string::npos) << replica.Logs();
}

// Quota per GPU model in cluster mode: the flavors from the config, team-a's A100 limit from a
// ResourceQuota (flavor.gpugate.io/a100.nvidia.com_gpu, which Kubernetes' own quota ignores).
// 30 creates pinned to A100 race through three replicas for the one A100 left: exactly one is
// admitted, and the GPUQuota and every replica's /quota show the flavor's use and limit.
TEST(ClusterMode, ThreeReplicasAdmitExactlyOneForAFlavorsLastGpu) {
  Cluster cluster(100,
                  std::string(kUsualTiming) +
                      "quota:\n  flavors:\n"
                      "    a100: {nodeLabels: {nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB}}\n"
                      "    t4: {nodeLabels: {nvidia.com/gpu.product: Tesla-T4}}\n");
  cluster.api().Create("/api/v1/namespaces/team-a/resourcequotas",
                       {{"apiVersion", "v1"},
                        {"kind", "ResourceQuota"},
                        {"metadata", {{"name", "models"}}},
                        {"spec", {{"hard", {{"flavor.gpugate.io/a100.nvidia.com_gpu", "1"}}}}}});
  for (int i = 0; i < 3; ++i) cluster.AddReplica();
  constexpr int kCreates = 30;
  std::latch start(kCreates);
  std::atomic<int> admitted = 0, failed = 0;
  std::vector<std::thread> threads;
  for (int i = 0; i < kCreates; ++i) {
    threads.emplace_back([&, i] {
      auto client = cluster.replicas()[i % 3]->Client();
      std::string name = "a100-" + std::to_string(i);
      json pod = GpuPod(name, json::array({{{"nvidia.com/gpu", "1"}}}));
      pod["metadata"]["uid"] = "uid-" + name;
      pod["spec"]["nodeSelector"] = {{"nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB"}};
      json review = MakeReview(pod, {.uid = "req-" + name});
      start.arrive_and_wait();
      auto res = client->Post("/validate", review.dump(), "application/json");
      if (!res || res->status != 200) return void(++failed);
      json response = json::parse(res->body)["response"];
      if (response["allowed"].get<bool>()) return void(++admitted);
      EXPECT_EQ(response["status"]["message"],
                "exceeded quota: team-a, requested: nvidia.com/gpu@a100=1, used: "
                "nvidia.com/gpu@a100=1, limited: nvidia.com/gpu@a100=1");
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failed, 0);
  EXPECT_EQ(admitted, 1);
  json status =
      cluster.api().Get("/apis/gpugate.io/v1alpha1/namespaces/team-a/gpuquotas/gpugate")["status"];
  EXPECT_EQ(status["used"], json({{"nvidia.com/gpu", "1"}, {"nvidia.com/gpu@a100", "1"}}));
  EXPECT_EQ(status["hard"], json({{"nvidia.com/gpu", "100"}, {"nvidia.com/gpu@a100", "1"}}));
  for (auto& r : cluster.replicas()) {
    EXPECT_TRUE(Eventually(
        [&] {
          auto res = r->Client()->Get("/quota?namespace=team-a");
          if (!res || res->status != 200) return false;
          json a100 = json::parse(res->body)["namespaces"][0]["flavors"]["a100"]["nvidia.com/gpu"];
          return a100 == json({{"used", 1}, {"hard", 1}});
        },
        kClusterWait));
  }
}

}  // namespace
}  // namespace gpugate::testing
