// The cluster ledger against the stand-in API server (tests/standin/), reached in memory: real
// watches and resourceVersion conflicts as the apiserver makes them, without TLS (the wire is
// kube_client_test.cc's).
#include "cluster/cluster_ledger.h"

#include <gtest/gtest.h>

#include <atomic>
#include <latch>
#include <mutex>
#include <thread>

#include "cluster/charge_batch.h"
#include "cluster/gpu_quota_record.h"
#include "quota/testing.h"
#include "standin/standin.h"
#include "support/eventually.h"

namespace gpugate::cluster {
namespace {

using quota::testutil::Outcome;
using quota::testutil::RenderUsage;

using nlohmann::json;
using quota::kMilli;
using quota::ReserveOutcome;
using std::chrono::milliseconds;
using std::chrono::seconds;
using testing::StandInApiServer;

constexpr const char* kGpu = "nvidia.com/gpu";
constexpr const char* kToken = "stand-in-token";

quota::Amounts Gpus(int64_t n) { return {{kGpu, n * kMilli}}; }

json Pod(const std::string& ns, const std::string& name, int gpus,
         const std::string& phase = "Running") {
  json limits = json::object();
  if (gpus > 0) limits[kGpu] = std::to_string(gpus);
  return {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", {{"name", name}, {"namespace", ns}}},
      {"spec",
       {{"containers",
         json::array(
             {{{"name", "main"}, {"image", "trainer"}, {"resources", {{"limits", limits}}}}})}}},
      {"status", {{"phase", phase}}}};
}

json ResourceQuota(const std::string& ns, const std::string& name, json spec) {
  return {{"apiVersion", "v1"},
          {"kind", "ResourceQuota"},
          {"metadata", {{"name", name}, {"namespace", ns}}},
          {"spec", std::move(spec)}};
}

std::string PodsIn(const std::string& ns) { return "/api/v1/namespaces/" + ns + "/pods"; }

// Watches deliver asynchronously: a test polls for what it expects, for up to kWait.
using gpugate::testing::Eventually;
constexpr seconds kWait{10};

// A clock the test moves by hand.
class FakeClock {
 public:
  WallClock::time_point Now() const { return start_ + milliseconds(offsetMs_.load()); }
  void Advance(milliseconds by) { offsetMs_ += by.count(); }

 private:
  WallClock::time_point start_ = WallClock::now();
  std::atomic<int64_t> offsetMs_{0};
};

class ClusterLedgerTest : public ::testing::Test {
 protected:
  void SetUp() override { StartServer(); }

  // (Re)starts the stand-in; `opaqueVersions`: it issues opaque resourceVersions.
  void StartServer(bool opaqueVersions = false) {
    server_.reset();
    server_ = std::make_unique<StandInApiServer>(
        StandInApiServer::Options{.token = kToken, .opaqueResourceVersions = opaqueVersions});
  }

  // One replica: its own client and ledger.
  struct Replica {
    std::unique_ptr<ApiClient> client;
    std::unique_ptr<ClusterLedger> ledger;
  };
  Replica MakeReplica(quota::QuotaConfig config, ClusterOptions options = {}, bool start = true) {
    Replica r;
    r.client = server_->InMemoryClient();
    r.ledger = std::make_unique<ClusterLedger>(*r.client, std::move(config), policy::Settings{},
                                               std::move(options));
    if (start) {
      r.ledger->Start();
      EXPECT_TRUE(Eventually([&] { return r.ledger->Ready(); }, kWait)) << "never synced";
    }
    return r;
  }

  // The namespace's GPUQuota as the API holds it.
  json Record(const std::string& ns) const { return server_->Get(GpuQuotaPath(ns, "gpugate")); }

  static quota::QuotaConfig Limit(const std::string& ns, int64_t gpus) {
    quota::QuotaConfig config;
    config.limits[ns] = Gpus(gpus);
    return config;
  }

  std::unique_ptr<StandInApiServer> server_;
};

TEST_F(ClusterLedgerTest, LimitsComeFromResourceQuotasAndConfigSmallestWins) {
  server_->Create("/api/v1/namespaces/team-a/resourcequotas",
                  ResourceQuota("team-a", "gpus", {{"hard", {{"requests.nvidia.com/gpu", "6"}}}}));
  server_->Create("/api/v1/namespaces/team-a/resourcequotas",
                  ResourceQuota("team-a", "plain", {{"hard", {{"nvidia.com/gpu", "5"}}}}));
  server_->Create("/api/v1/namespaces/team-b/resourcequotas",
                  ResourceQuota("team-b", "gpus",
                                {{"hard", {{"requests.nvidia.com/gpu", "3"}, {"cpu", "10"}}}}));
  server_->Create("/api/v1/namespaces/team-d/resourcequotas",
                  ResourceQuota("team-d", "cpu", {{"hard", {{"requests.cpu", "10"}}}}));
  server_->Create("/api/v1/namespaces/team-e/resourcequotas",
                  ResourceQuota("team-e", "scoped",
                                {{"hard", {{"requests.nvidia.com/gpu", "1"}}},
                                 {"scopes", json::array({"BestEffort"})}}));
  quota::QuotaConfig config = Limit("team-a", 8);
  config.limits["team-c"] = {{kGpu, 4 * kMilli}, {"gpu-equivalents", 2 * kMilli}};
  Replica r = MakeReplica(config);

  EXPECT_EQ(RenderUsage(*r.ledger),
            "team-a{nvidia.com/gpu=0/5} team-b{nvidia.com/gpu=0/3} "
            "team-c{gpu-equivalents=0/2,nvidia.com/gpu=0/4}");
  EXPECT_EQ(Outcome(r.ledger->Reserve({"team-b", "p1", "u1"}, Gpus(4), false)),
            "exceeded quota: team-b, requested: nvidia.com/gpu=4, used: nvidia.com/gpu=0, "
            "limited: nvidia.com/gpu=3");

  // A quota changed or deleted while gpugate runs takes effect through the watch.
  server_->Update("/api/v1/namespaces/team-a/resourcequotas/plain",
                  ResourceQuota("team-a", "plain", {{"hard", {{"nvidia.com/gpu", "2"}}}}));
  server_->Delete("/api/v1/namespaces/team-b/resourcequotas/gpus");
  EXPECT_TRUE(Eventually(
      [&] {
        return RenderUsage(*r.ledger) ==
               "team-a{nvidia.com/gpu=0/2} team-c{gpu-equivalents=0/2,nvidia.com/gpu=0/4}";
      },
      kWait))
      << RenderUsage(*r.ledger);
  EXPECT_EQ(Outcome(r.ledger->Reserve({"team-b", "p1", "u1"}, Gpus(4), false)), "charged");
}

TEST_F(ClusterLedgerTest, TwoReplicasNeverAdmitPastTheLimit) {
  Replica a = MakeReplica(Limit("team-a", 10));
  Replica b = MakeReplica(Limit("team-a", 10));
  constexpr int kPods = 60;
  std::vector<std::string> outcomes(kPods);
  std::latch go(kPods);
  std::vector<std::thread> threads;
  for (int i = 0; i < kPods; ++i) {
    threads.emplace_back([&, i] {
      ClusterLedger& ledger = i % 2 == 0 ? *a.ledger : *b.ledger;
      go.arrive_and_wait();
      std::string name = "p" + std::to_string(i);
      outcomes[i] = Outcome(ledger.Reserve({"team-a", name, "uid-" + name}, Gpus(1), false));
    });
  }
  for (std::thread& t : threads) t.join();

  const std::string full =
      "exceeded quota: team-a, requested: nvidia.com/gpu=1, used: nvidia.com/gpu=10, "
      "limited: nvidia.com/gpu=10";
  int charged = 0, refused = 0;
  for (const std::string& o : outcomes) {
    charged += o == "charged";
    refused += o == full;
  }
  EXPECT_EQ(charged, 10);
  EXPECT_EQ(refused, kPods - 10) << ::testing::PrintToString(outcomes);
  json status = Record("team-a")["status"];
  EXPECT_EQ(status["used"], json({{kGpu, "10"}}));
  EXPECT_EQ(status["hard"], json({{kGpu, "10"}}));
  EXPECT_EQ(status["usedSummary"], "nvidia.com/gpu=10");
  EXPECT_EQ(status["hardSummary"], "nvidia.com/gpu=10");
  EXPECT_EQ(status["charges"].size(), 10u);
  for (Replica* r : {&a, &b}) {
    EXPECT_TRUE(Eventually(
        [&] { return RenderUsage(*r->ledger) == "team-a{nvidia.com/gpu=10/10}"; }, kWait))
        << RenderUsage(*r->ledger);
  }
}

// resourceVersions are opaque strings (Kubernetes API conventions): a server issuing
// "rv-9e3779b97f4a7c17", neither a number nor in order, works for the lists, the watches
// (resumed after a break, relisted after 410 Gone) and the guarded writes (409 on a stale one).
TEST_F(ClusterLedgerTest, OpaqueResourceVersionsWorkForListWatchAndUpdate) {
  StartServer(/*opaqueVersions=*/true);
  Replica a = MakeReplica(Limit("team-a", 2));
  Replica b = MakeReplica(Limit("team-a", 2));
  // What the API server does with an admitted pod: store it.
  auto store = [&](const std::string& name) {
    json pod = Pod("team-a", name, 1);
    pod["metadata"]["uid"] = "uid-" + name;
    server_->Create(PodsIn("team-a"), pod);
  };
  EXPECT_EQ(Outcome(a.ledger->Reserve({"team-a", "p0", "uid-p0"}, Gpus(1), false)), "charged");
  store("p0");
  // b's watched copy may not have a's charge yet: its write conflicts, and it reads again.
  EXPECT_EQ(Outcome(b.ledger->Reserve({"team-a", "p1", "uid-p1"}, Gpus(1), false)), "charged");
  store("p1");
  EXPECT_EQ(Outcome(a.ledger->Reserve({"team-a", "p2", "uid-p2"}, Gpus(1), false)),
            "exceeded quota: team-a, requested: nvidia.com/gpu=1, used: nvidia.com/gpu=2, "
            "limited: nvidia.com/gpu=2");
  std::string version = Record("team-a")["metadata"]["resourceVersion"];
  EXPECT_TRUE(version.starts_with("rv-")) << version;

  // The watches resume from an opaque version after a break; a pod deleted meanwhile is seen
  // and its charge freed.
  server_->BreakWatches();
  server_->Delete(PodsIn("team-a") + "/p0");
  EXPECT_TRUE(
      Eventually([&] { return !Record("team-a")["status"]["charges"].contains("p0"); }, kWait))
      << Record("team-a").dump();
  for (Replica* r : {&a, &b}) {
    EXPECT_TRUE(
        Eventually([&] { return RenderUsage(*r->ledger) == "team-a{nvidia.com/gpu=1/2}"; }, kWait))
        << RenderUsage(*r->ledger);
  }

  // The history expires (410 Gone on resume): both relist, and charge from the relisted copy.
  const int getsBefore = server_->requests("GET");
  server_->ExpireHistory();
  server_->BreakWatches();
  EXPECT_TRUE(Eventually([&] { return server_->requests("GET") - getsBefore >= 6; }, kWait))
      << "three lists per replica";
  EXPECT_EQ(Outcome(b.ledger->Reserve({"team-a", "p2", "uid-p2"}, Gpus(1), false)), "charged");
  store("p2");
  for (Replica* r : {&a, &b}) {
    EXPECT_TRUE(
        Eventually([&] { return RenderUsage(*r->ledger) == "team-a{nvidia.com/gpu=2/2}"; }, kWait))
        << RenderUsage(*r->ledger);
  }
  EXPECT_EQ(Record("team-a")["status"]["charges"].size(), 2u);
}

TEST_F(ClusterLedgerTest, ChargesSameUidOnceAnotherUidBesideAndReleasesByName) {
  Replica r = MakeReplica(Limit("team-a", 4));
  EXPECT_EQ(Outcome(r.ledger->Reserve({"team-a", "p1", "u1"}, Gpus(1), false)), "charged");
  EXPECT_EQ(Outcome(r.ledger->Reserve({"team-a", "p1", "u1"}, Gpus(1), false)), "already charged");
  EXPECT_EQ(Outcome(r.ledger->Reserve({"team-a", "p1", "u2"}, Gpus(2), false)), "charged");
  EXPECT_EQ(Record("team-a")["status"]["charges"]["p1"].size(), 2u);
  EXPECT_EQ(RenderUsage(*r.ledger), "team-a{nvidia.com/gpu=3/4}");

  Result<bool> released = r.ledger->Release({"team-a", "p1", "u2"});
  ASSERT_TRUE(released) << released.error().message;
  EXPECT_TRUE(*released);
  EXPECT_EQ(Record("team-a")["status"]["usedSummary"], "");
  EXPECT_EQ(Record("team-a")["status"]["charges"], json::object());
  EXPECT_TRUE(
      Eventually([&] { return RenderUsage(*r.ledger) == "team-a{nvidia.com/gpu=0/4}"; }, kWait));
  released = r.ledger->Release({"team-a", "p1", "u2"});
  ASSERT_TRUE(released);
  EXPECT_FALSE(*released);
  released = r.ledger->Release({"team-z", "nobody", "u9"});
  ASSERT_TRUE(released);
  EXPECT_FALSE(*released);
}

TEST_F(ClusterLedgerTest, PodThatSucceedsFreesItsChargeWithoutWaitingForTheInterval) {
  // An interval far longer than the test: only the pod watch's wake-up can reconcile in time.
  Replica r = MakeReplica(Limit("team-a", 4), {.reconcileInterval = std::chrono::hours(1)});
  json pod = server_->Create(PodsIn("team-a"), Pod("team-a", "trainer", 2, "Pending"));
  std::string uid = pod["metadata"]["uid"];
  EXPECT_EQ(Outcome(r.ledger->Reserve({"team-a", "trainer", uid}, Gpus(2), false)), "charged");

  pod["status"]["phase"] = "Running";
  server_->Update(PodsIn("team-a") + "/trainer", pod);
  pod["status"]["phase"] = "Succeeded";
  server_->Update(PodsIn("team-a") + "/trainer", pod);
  EXPECT_TRUE(Eventually([&] { return Record("team-a")["status"]["charges"].empty(); }, kWait))
      << Record("team-a").dump();
  EXPECT_TRUE(
      Eventually([&] { return RenderUsage(*r.ledger) == "team-a{nvidia.com/gpu=0/4}"; }, kWait))
      << RenderUsage(*r.ledger);
}

TEST_F(ClusterLedgerTest, DeletedPodFreesItsCharge) {
  Replica r = MakeReplica(Limit("team-a", 4), {.reconcileInterval = std::chrono::hours(1)});
  json pod = server_->Create(PodsIn("team-a"), Pod("team-a", "trainer", 1));
  EXPECT_EQ(
      Outcome(r.ledger->Reserve({"team-a", "trainer", pod["metadata"]["uid"]}, Gpus(1), false)),
      "charged");
  ASSERT_TRUE(
      Eventually([&] { return RenderUsage(*r.ledger) == "team-a{nvidia.com/gpu=1/4}"; }, kWait));
  server_->Delete(PodsIn("team-a") + "/trainer");
  EXPECT_TRUE(Eventually([&] { return Record("team-a")["status"]["charges"].empty(); }, kWait))
      << Record("team-a").dump();
}

TEST_F(ClusterLedgerTest, ChargeWhosePodNeverAppearsIsDroppedAfterTheGrace) {
  FakeClock clock;
  Replica r = MakeReplica(Limit("team-a", 4), {.reservationGrace = seconds(1),
                                               .reconcileInterval = std::chrono::hours(1),
                                               .clock = [&clock] { return clock.Now(); }});
  EXPECT_EQ(Outcome(r.ledger->Reserve({"team-a", "refused-later", "u1"}, Gpus(1), false)),
            "charged");
  clock.Advance(milliseconds(900));
  r.ledger->ReconcileOnce();
  EXPECT_EQ(Record("team-a")["status"]["charges"].size(), 1u) << "dropped within the grace";

  clock.Advance(milliseconds(200));
  EXPECT_TRUE(Eventually(
      [&] {
        r.ledger->ReconcileOnce();
        return Record("team-a")["status"]["charges"].empty();
      },
      kWait))
      << Record("team-a").dump();
  EXPECT_TRUE(
      Eventually([&] { return RenderUsage(*r.ledger) == "team-a{nvidia.com/gpu=0/4}"; }, kWait));
}

TEST_F(ClusterLedgerTest, RunningGpuPodWithoutChargeIsCharged) {
  json running = server_->Create(PodsIn("team-a"), Pod("team-a", "early", 2));
  server_->Create(PodsIn("team-a"), Pod("team-a", "finished", 1, "Succeeded"));
  server_->Create(PodsIn("team-a"), Pod("team-a", "cpu-only", 0));
  server_->Create(PodsIn("kube-system"), Pod("kube-system", "exempt", 1));
  // Charges are added only while the pod watch is open, which comes a moment after the first
  // sync's wake-up: the next timed pass adds them.
  Replica r = MakeReplica(Limit("team-a", 4), {.reconcileInterval = milliseconds(50)});

  EXPECT_TRUE(
      Eventually([&] { return RenderUsage(*r.ledger) == "team-a{nvidia.com/gpu=2/4}"; }, kWait))
      << RenderUsage(*r.ledger);
  json charges = Record("team-a")["status"]["charges"];
  ASSERT_EQ(charges.size(), 1u) << charges.dump();
  EXPECT_EQ(charges["early"][0]["uid"], running["metadata"]["uid"]);
  EXPECT_EQ(charges["early"][0]["amounts"], json({{kGpu, "2"}}));
  EXPECT_TRUE(server_->Get(GpuQuotaPath("kube-system", "gpugate")).is_null());
}

TEST_F(ClusterLedgerTest, RefusesLimitedNamespacesUntilFirstSync) {
  Replica r = MakeReplica(Limit("team-a", 4), {}, /*start=*/false);
  EXPECT_FALSE(r.ledger->Ready());
  EXPECT_EQ(Outcome(r.ledger->Reserve({"team-a", "p1", "u1"}, Gpus(1), false)),
            "error: gpugate has not finished its first sync with the Kubernetes API; GPU pods in "
            "namespaces with a quota are refused until it has");
  EXPECT_EQ(server_->requests("POST") + server_->requests("PUT"), 0);

  r.ledger->Start();
  ASSERT_TRUE(Eventually([&] { return r.ledger->Ready(); }, kWait));
  EXPECT_EQ(Outcome(r.ledger->Reserve({"team-a", "p1", "u1"}, Gpus(1), false)), "charged");
}

TEST_F(ClusterLedgerTest, DryRunChecksButWritesNothing) {
  Replica r = MakeReplica(Limit("team-a", 2), {.reconcileInterval = std::chrono::hours(1)});
  EXPECT_EQ(Outcome(r.ledger->Reserve({"team-a", "p1", "u1"}, Gpus(1), false)), "charged");
  int writes = server_->requests("PUT") + server_->requests("POST");

  EXPECT_EQ(Outcome(r.ledger->Reserve({"team-a", "p2", "u2"}, Gpus(1), true)), "charged");
  EXPECT_EQ(Outcome(r.ledger->Reserve({"team-a", "p3", "u3"}, Gpus(2), true)),
            "exceeded quota: team-a, requested: nvidia.com/gpu=2, used: nvidia.com/gpu=1, "
            "limited: nvidia.com/gpu=2");
  EXPECT_EQ(Outcome(r.ledger->Reserve({"team-b", "p4", "u4"}, Gpus(1), true)), "charged");
  EXPECT_EQ(server_->requests("PUT") + server_->requests("POST"), writes);
  EXPECT_EQ(Record("team-a")["status"]["usedSummary"], "nvidia.com/gpu=1");
  EXPECT_TRUE(Record("team-b").is_null());
}

// The quota rule in warn or audit mode: over the limit is written all the same, and a limit
// cannot refuse before the first sync either.
TEST_F(ClusterLedgerTest, UnenforcedChargesGoOverTheLimitAndAreWritten) {
  Replica r = MakeReplica(Limit("team-a", 2), {.reconcileInterval = std::chrono::hours(1)},
                          /*start=*/false);
  auto unenforced = [&](const std::string& name, int64_t gpus, bool dryRun = false) {
    return Outcome(r.ledger->Reserve({.pod = {"team-a", name, "uid-" + name},
                                      .amounts = Gpus(gpus),
                                      .dryRun = dryRun,
                                      .enforce = false}));
  };
  EXPECT_EQ(unenforced("p1", 2), "charged") << "before the first sync";
  r.ledger->Start();
  ASSERT_TRUE(Eventually([&] { return r.ledger->Ready(); }, kWait));
  int writes = server_->requests("PUT") + server_->requests("POST");
  EXPECT_EQ(unenforced("p2", 1, /*dryRun=*/true),
            "charged over the limit: exceeded quota: team-a, requested: nvidia.com/gpu=1, used: "
            "nvidia.com/gpu=2, limited: nvidia.com/gpu=2");
  EXPECT_EQ(server_->requests("PUT") + server_->requests("POST"), writes) << "a dry run writes";
  EXPECT_EQ(unenforced("p2", 1),
            "charged over the limit: exceeded quota: team-a, requested: nvidia.com/gpu=1, used: "
            "nvidia.com/gpu=2, limited: nvidia.com/gpu=2");
  EXPECT_EQ(Record("team-a")["status"]["usedSummary"], "nvidia.com/gpu=3");
  EXPECT_EQ(Outcome(r.ledger->Reserve({"team-a", "p3", "uid-p3"}, Gpus(1), false)),
            "exceeded quota: team-a, requested: nvidia.com/gpu=1, used: nvidia.com/gpu=3, "
            "limited: nvidia.com/gpu=2");
}

TEST_F(ClusterLedgerTest, ApiDownRefusesLimitedNamespacesAndAdmitsTheOthers) {
  std::mutex mu;
  std::vector<std::string> reported;  // guarded by mu
  Replica r = MakeReplica(Limit("team-a", 4), {.onError = [&](const std::string& message) {
                            std::lock_guard lock(mu);
                            reported.push_back(message);
                          }});
  EXPECT_EQ(Outcome(r.ledger->Reserve({"team-a", "p1", "u1"}, Gpus(1), false)), "charged");
  server_->Stop();

  std::string refused = Outcome(r.ledger->Reserve({"team-a", "p2", "u2"}, Gpus(1), false));
  EXPECT_TRUE(refused.starts_with(
      "error: PUT /apis/gpugate.io/v1alpha1/namespaces/team-a/gpuquotas/gpugate: "))
      << refused;
  EXPECT_EQ(Outcome(r.ledger->Reserve({"team-b", "p3", "u3"}, Gpus(1), false)),
            "admitted uncharged");
  std::lock_guard lock(mu);
  std::string wanted =
      "charging team-b/p3 (admitted anyway, no limit there): "
      "GET /apis/gpugate.io/v1alpha1/namespaces/team-b/gpuquotas/gpugate: ";
  EXPECT_TRUE(std::any_of(reported.begin(), reported.end(), [&](const std::string& m) {
    return m.starts_with(wanted);
  })) << ::testing::PrintToString(reported);
}

// Group commit (group_commit.h): charges that arrive while a write for their namespace is in
// flight share the next write, each checked in arrival order; one that no longer fits is refused
// while the others in the same write are charged.
TEST_F(ClusterLedgerTest, ChargesQueuedBehindAWriteShareOneWriteAndOneThatNoLongerFitsIsRefused) {
  Replica r = MakeReplica(Limit("team-a", 3));
  // The namespace's first charge creates its record; the API server holds that write.
  server_->HoldRequests({.method = "POST", .pathPrefix = "/apis/gpugate.io/"});
  std::map<std::string, std::string> outcomes;
  std::mutex mu;
  std::vector<std::thread> threads;
  auto charge = [&](const std::string& name, int gpus) {
    threads.emplace_back([&, name, gpus] {
      std::string outcome =
          Outcome(r.ledger->Reserve({"team-a", name, "uid-" + name}, Gpus(gpus), false));
      std::lock_guard lock(mu);
      outcomes[name] = outcome;
    });
  };
  charge("first", 1);
  ASSERT_TRUE(Eventually([&] { return server_->held() == 1; }, kWait));
  // Three more queue behind it, in this order: b fits, c (2 GPUs) no longer does, d does.
  charge("b", 1);
  ASSERT_TRUE(Eventually([&] { return r.ledger->GroupCommitStats().queued == 1; }, kWait));
  charge("c", 2);
  ASSERT_TRUE(Eventually([&] { return r.ledger->GroupCommitStats().queued == 2; }, kWait));
  charge("d", 1);
  ASSERT_TRUE(Eventually([&] { return r.ledger->GroupCommitStats().queued == 3; }, kWait));
  const int putsBefore = server_->requests("PUT");
  server_->ReleaseHeld();
  for (std::thread& t : threads) t.join();

  EXPECT_EQ(outcomes["first"], "charged");
  EXPECT_EQ(outcomes["b"], "charged");
  EXPECT_EQ(outcomes["c"],
            "exceeded quota: team-a, requested: nvidia.com/gpu=2, used: nvidia.com/gpu=2, "
            "limited: nvidia.com/gpu=3");
  EXPECT_EQ(outcomes["d"], "charged");
  EXPECT_EQ(server_->requests("PUT") - putsBefore, 1);  // b, c and d in one write
  GroupCommit::Stats stats = r.ledger->GroupCommitStats();
  EXPECT_EQ(stats.batches, 2u);
  EXPECT_EQ(stats.largest, 3u);
  json charges = Record("team-a")["status"]["charges"];
  EXPECT_EQ(charges.size(), 3u) << charges.dump();
  EXPECT_FALSE(charges.contains("c"));
  EXPECT_EQ(Record("team-a")["status"]["usedSummary"], "nvidia.com/gpu=3");
}

// A namespace's GPUQuota is bounded in size (etcd refuses requests over 1.5 MiB): the charge that
// would take it past the bound is refused with a message saying so, not an opaque API error, and
// a release makes room again.
TEST_F(ClusterLedgerTest, AChargeThatWouldOverfillTheRecordIsRefusedSayingSo) {
  Replica r = MakeReplica({}, {.maxRecordBytes = 1200});
  int charged = 0;
  std::string refused;
  for (int i = 0; i < 100 && refused.empty(); ++i) {
    std::string name = "worker-" + std::to_string(i);
    std::string outcome =
        Outcome(r.ledger->Reserve({"team-a", name, "uid-" + name}, Gpus(1), false));
    outcome == "charged" ? void(++charged) : void(refused = outcome);
  }
  ASSERT_GT(charged, 0);
  GpuQuotaRecord stored = DecodeGpuQuota(Record("team-a"));
  const std::string bytes = std::to_string(RecordBytes(stored, "gpugate", {}));
  EXPECT_EQ(refused, "gpugate cannot record another GPU pod in team-a: its GPUQuota holds " +
                         std::to_string(charged) + " charges in " + bytes +
                         " bytes, and one more would pass cluster.maxGpuQuotaBytes (1200; a "
                         "Kubernetes object must stay under etcd's 1.5 MiB request limit). Room "
                         "returns as the namespace's GPU pods finish or are deleted");
  EXPECT_LE(Record("team-a").dump().size(), 1200u);
  EXPECT_EQ(Outcome(r.ledger->Release({"team-a", "worker-0", "uid-worker-0"})), "released");
  EXPECT_EQ(Outcome(r.ledger->Reserve({"team-a", "late", "uid-late"}, Gpus(1), false)), "charged");
}

// What the API server does to a Pod on a graceful DELETE: the pod stays, terminating, with
// deletionTimestamp = now + grace and deletionGracePeriodSeconds = grace.
json Terminating(json pod, WallClock::time_point now, int grace) {
  pod["metadata"]["deletionTimestamp"] = FormatRfc3339(now + seconds(grace));
  pod["metadata"]["deletionGracePeriodSeconds"] = grace;
  return pod;
}

constexpr const char* kFullAtTwo =
    "exceeded quota: team-a, requested: nvidia.com/gpu=1, used: nvidia.com/gpu=2, "
    "limited: nvidia.com/gpu=2";

// Waits until the replica's pod watch has delivered every pod change made so far: the watch
// delivers in order, so once a running GPU pod created now in team-b is charged by the
// reconciler, every earlier change is in the replica's cache. Ends with one pass done.
void AwaitPodWatch(StandInApiServer& server, ClusterLedger& ledger, const std::string& marker) {
  server.Create(PodsIn("team-b"), Pod("team-b", marker, 1));
  EXPECT_TRUE(Eventually(
      [&] {
        ledger.ReconcileOnce();
        json record = server.Get(GpuQuotaPath("team-b", "gpugate"));
        return !record.is_null() && record["status"]["charges"].contains(marker);
      },
      kWait))
      << "the pod watch never delivered " << marker;
}

TEST_F(ClusterLedgerTest, APodDeletedGracefullyKeepsItsChargeUntilItIsGone) {
  FakeClock clock;
  Replica r = MakeReplica(Limit("team-a", 2), {.reconcileInterval = std::chrono::hours(1),
                                               .clock = [&clock] { return clock.Now(); }});
  json pod = Pod("team-a", "trainer", 2);
  pod["spec"]["nodeName"] = "gpu-node-1";
  pod = server_->Create(PodsIn("team-a"), pod);
  const std::string uid = pod["metadata"]["uid"];
  ASSERT_EQ(Outcome(r.ledger->Reserve({"team-a", "trainer", uid}, Gpus(2), false)), "charged");
  // The DELETE review answers without a write: the pod watch carries the deletion.
  EXPECT_EQ(r.ledger->ReleaseAt({"team-a", "trainer", uid}, clock.Now() + seconds(60),
                                quota::kNoDeadline),
            true);
  server_->Update(PodsIn("team-a") + "/trainer", Terminating(pod, clock.Now(), 30));
  clock.Advance(seconds(59));
  AwaitPodWatch(*server_, *r.ledger, "marker-1");
  EXPECT_EQ(Record("team-a")["status"]["charges"].size(), 1u) << Record("team-a").dump();
  EXPECT_EQ(Outcome(r.ledger->Reserve({"team-a", "next", "u-next"}, Gpus(1), false)), kFullAtTwo);
  // Gone (after the kubelet's final delete): freed at once, before its grace period ends.
  server_->Delete(PodsIn("team-a") + "/trainer");
  EXPECT_TRUE(Eventually([&] { return Record("team-a")["status"]["charges"].empty(); }, kWait))
      << Record("team-a").dump();
  EXPECT_TRUE(Eventually(
      [&] {
        return Outcome(r.ledger->Reserve({"team-a", "next", "u-next"}, Gpus(1), false)) ==
               "charged";
      },
      kWait));
}

TEST_F(ClusterLedgerTest, APodStuckTerminatingStopsCountingAfterItsGracePeriod) {
  FakeClock clock;
  Replica r = MakeReplica(Limit("team-a", 2), {.reconcileInterval = std::chrono::hours(1),
                                               .clock = [&clock] { return clock.Now(); }});
  json pod = Pod("team-a", "trainer", 2);
  pod["spec"]["nodeName"] = "lost-node";
  pod = server_->Create(PodsIn("team-a"), pod);
  ASSERT_EQ(
      Outcome(r.ledger->Reserve({"team-a", "trainer", pod["metadata"]["uid"]}, Gpus(2), false)),
      "charged");
  server_->Update(PodsIn("team-a") + "/trainer", Terminating(pod, clock.Now(), 30));
  // Until deletionTimestamp + grace (60 s from the delete) has passed, it counts. (The boundary
  // to the millisecond is reconcile_test.cc's: the timestamp is written to the millisecond.)
  clock.Advance(seconds(59));
  AwaitPodWatch(*server_, *r.ledger, "marker-1");
  EXPECT_EQ(Record("team-a")["status"]["charges"].size(), 1u) << Record("team-a").dump();
  EXPECT_EQ(Outcome(r.ledger->Reserve({"team-a", "next", "u-next"}, Gpus(1), false)), kFullAtTwo);
  // Then, its node lost and the pod never removed, it stops counting, as in ResourceQuota.
  clock.Advance(seconds(2));
  r.ledger->ReconcileOnce();
  EXPECT_TRUE(Record("team-a")["status"]["charges"].empty()) << Record("team-a").dump();
  EXPECT_TRUE(Eventually(
      [&] {
        return Outcome(r.ledger->Reserve({"team-a", "next", "u-next"}, Gpus(1), false)) ==
               "charged";
      },
      kWait));
  EXPECT_FALSE(server_->Get(PodsIn("team-a") + "/trainer").is_null());  // still there
}

}  // namespace
}  // namespace gpugate::cluster
