// GPU-hour usage in cluster mode, end to end in memory: cluster ledgers on the stand-in API
// server (real watches, resourceVersion conflicts), an injected clock, and ClusterUsage reading
// what they wrote. Each test asserts what a user would see: the GPUQuota's book, the budget's
// answer, the report.
#include "cluster/cluster_usage.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "cluster/cluster_ledger.h"
#include "common/rfc3339.h"
#include "standin/standin.h"
#include "support/eventually.h"
#include "usage/book_codec.h"
#include "usage/testing.h"

namespace gpugate::cluster {
namespace {

using gpugate::testing::Eventually;
using nlohmann::json;
using quota::kMilli;
using std::chrono::hours;
using std::chrono::minutes;
using std::chrono::seconds;
using testing::StandInApiServer;

constexpr seconds kWait{10};
constexpr const char* kGpu = "nvidia.com/gpu";

WallClock::time_point Time(const char* rfc3339) { return *ParseRfc3339(rfc3339); }

// A clock the test sets.
class Clock {
 public:
  explicit Clock(WallClock::time_point t) : ms_(Ms(t)) {}
  WallClock::time_point Now() const {
    return WallClock::time_point(std::chrono::milliseconds(ms_.load()));
  }
  void Set(WallClock::time_point t) { ms_ = Ms(t); }

 private:
  static int64_t Ms(WallClock::time_point t) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
  }
  std::atomic<int64_t> ms_;
};

json Pod(const std::string& name, int gpus, const std::string& phase = "Pending") {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}, {"namespace", "team-a"}}},
          {"spec",
           {{"containers",
             json::array({{{"name", "main"},
                           {"image", "trainer"},
                           {"resources", {{"limits", {{kGpu, std::to_string(gpus)}}}}}}})}}},
          {"status", {{"phase", phase}}}};
}

const std::string kPods = "/api/v1/namespaces/team-a/pods";

class ClusterUsageTest : public ::testing::Test {
 protected:
  struct Replica {
    std::unique_ptr<ApiClient> client;
    std::unique_ptr<ClusterLedger> ledger;
    std::unique_ptr<ClusterUsage> usage;
  };

  Replica MakeReplica(usage::UsageConfig config = {}) {
    Replica r;
    r.client = api_.InMemoryClient();
    ClusterOptions options{.reconcileInterval = std::chrono::milliseconds(20),
                           .clock = [this] { return clock_.Now(); },
                           .onError = [this](const std::string& m) { Log(m); }};
    options.usage = *BookSettingsFor(config);
    r.ledger = std::make_unique<ClusterLedger>(*r.client, quota::QuotaConfig{}, policy::Settings{},
                                               std::move(options));
    r.usage = std::move(*ClusterUsage::Create(*r.ledger, config));
    r.ledger->Start();
    EXPECT_TRUE(Eventually([&] { return r.ledger->Ready(); }, kWait)) << "never synced";
    return r;
  }

  // Charges pod `name`, as its admission does, then stores it, as the API server does next.
  // (Stored first, another replica's reconciler could charge it before the admission.)
  std::string Admit(Replica& r, const std::string& name, int gpus) {
    const std::string uid = "uid-" + name;
    auto charged = r.ledger->Reserve({"team-a", name, uid}, {{kGpu, gpus * kMilli}}, false);
    EXPECT_TRUE(charged && charged->outcome == quota::ReserveOutcome::kCharged);
    json pod = Pod(name, gpus);
    pod["metadata"]["uid"] = uid;
    EXPECT_EQ(api_.Create(kPods, pod)["metadata"]["uid"], uid);
    return uid;
  }

  // The kubelet's status update: `phase`, started at `started`, its container finished at
  // `finished` (if given).
  void Status(const std::string& name, const std::string& phase, const char* started,
              const char* finished = nullptr) {
    json pod = api_.Get(kPods + "/" + name);
    pod["status"]["phase"] = phase;
    if (started) pod["status"]["startTime"] = started;
    if (finished) {
      pod["status"]["containerStatuses"] = json::array(
          {{{"name", "main"}, {"state", {{"terminated", {{"finishedAt", finished}}}}}}});
    }
    api_.Update(kPods + "/" + name, pod);
  }

  json Record() const { return api_.Get(GpuQuotaPath("team-a", "gpugate")); }

  // The record's charges: "name[started]" or "name[-]", in order.
  std::string Charges() const {
    std::string out;
    json charges = Record()["status"]["charges"];
    for (const auto& [name, list] : charges.items()) {
      for (const json& c : list) {
        out += (out.empty() ? "" : " ") + name + "[" + c.value("started", "-") + "]";
      }
    }
    return out;
  }

  // The record's book as usage/testing.h renders it, "absent" or why it cannot be read.
  std::string Book(const usage::UsageConfig& config = {}) const {
    const json record = Record();
    const json* book = At(record, {"status", "usage"});
    if (!book) return "absent";
    auto settings = BookSettingsFor(config);
    auto decoded = usage::DecodeBook(book->dump(), settings->zone, settings->options);
    return decoded ? usage::testing::Render(*decoded) : decoded.error().message;
  }

  void Log(const std::string& message) {
    std::lock_guard lock(mu_);
    log_.push_back(message);
  }
  std::vector<std::string> Logged() const {
    std::lock_guard lock(mu_);
    return log_;
  }

  Clock clock_{Time("2026-11-18T10:00:00Z")};
  StandInApiServer api_{StandInApiServer::Options{.token = "t"}};
  mutable std::mutex mu_;
  std::vector<std::string> log_;
};

usage::sys_seconds Sec(const char* rfc3339) { return std::chrono::floor<seconds>(Time(rfc3339)); }

// Milli-GPU-seconds of team-a/nvidia.com/gpu in the report of 2026-11, by namespace.
int64_t November(const ClusterUsage& usage, const char* now) {
  usage::UsageReport report = usage.Report(*usage::QueryForMonth("2026-11"), Sec(now));
  for (const usage::ReportRow& row : report.rows) {
    if (row.ns == "team-a" && row.resource == kGpu) return row.milliGpuSeconds;
  }
  return 0;
}

constexpr int64_t kGpuHour = usage::kMilliGpuSecondsPerHour;

TEST_F(ClusterUsageTest, APodAccruesFromItsStartToItsContainersFinish) {
  Replica r = MakeReplica();
  const auto baseline = r.usage->Accrued(Sec("2026-11-18T10:00:00Z"));
  EXPECT_TRUE(baseline.empty());
  Admit(r, "trainer", 2);
  // Scheduled, not started: its charge has no start, and it accrues nothing.
  EXPECT_TRUE(Eventually([&] { return Charges() == "trainer[-]"; }, kWait)) << Charges();
  EXPECT_EQ(November(*r.usage, "2026-11-18T11:00:00Z"), 0);

  Status("trainer", "Running", "2026-11-18T10:00:00Z");
  EXPECT_TRUE(Eventually([&] { return Charges() == "trainer[2026-11-18T10:00:00.000Z]"; }, kWait))
      << Charges();
  // Running: counted up to the moment asked, never stored.
  EXPECT_TRUE(Eventually([&] { return November(*r.usage, "2026-11-18T13:00:00Z") == 6 * kGpuHour; },
                         kWait));
  EXPECT_EQ(Book(), "absent");

  clock_.Set(Time("2026-11-18T13:00:00Z"));
  Status("trainer", "Succeeded", "2026-11-18T10:00:00Z", "2026-11-18T12:30:00Z");
  EXPECT_TRUE(Eventually([&] { return Charges().empty(); }, kWait)) << Charges();
  EXPECT_EQ(Book(), "team-a/nvidia.com/gpu 2026-11-18=5h");
  EXPECT_TRUE(Eventually([&] { return November(*r.usage, "2026-11-18T14:00:00Z") == 5 * kGpuHour; },
                         kWait));
  // The counter: from 0 at its first reading, everything since, the pod counted once.
  const auto accrued = r.usage->Accrued(Sec("2026-11-18T14:00:00Z"));
  ASSERT_TRUE(accrued.contains({"team-a", kGpu}));
  EXPECT_EQ(accrued.at({"team-a", kGpu}), 5 * kGpuHour);
}

TEST_F(ClusterUsageTest, APodThatNeverRanAccruesNothing) {
  Replica r = MakeReplica();
  Admit(r, "pending", 4);
  EXPECT_TRUE(Eventually([&] { return Charges() == "pending[-]"; }, kWait));
  clock_.Set(Time("2026-11-18T18:00:00Z"));
  api_.Delete(kPods + "/pending");
  EXPECT_TRUE(Eventually([&] { return Charges().empty(); }, kWait)) << Charges();
  EXPECT_EQ(Book(), "absent");
}

TEST_F(ClusterUsageTest, APodDeletedWithoutAFinishAccruesUntilItWasSeenGone) {
  Replica r = MakeReplica();
  Admit(r, "trainer", 1);
  Status("trainer", "Running", "2026-11-18T10:00:00Z");
  EXPECT_TRUE(Eventually([&] { return Charges() == "trainer[2026-11-18T10:00:00.000Z]"; }, kWait));
  clock_.Set(Time("2026-11-18T11:30:00Z"));
  api_.Delete(kPods + "/trainer");
  EXPECT_TRUE(Eventually([&] { return Charges().empty(); }, kWait)) << Charges();
  EXPECT_EQ(Book(), "team-a/nvidia.com/gpu 2026-11-18=1.5h");
}

// Two replicas see the same pod finish, both reconcile it, and both take its final DELETE: the
// guarded writes let one of them drop the charge and accrue it, and the other finds it gone.
TEST_F(ClusterUsageTest, ReplicasRacingToRecordTheSameFinishCountItOnce) {
  Replica a = MakeReplica(), b = MakeReplica();
  for (int i = 0; i < 5; ++i) {
    const std::string name = "job-" + std::to_string(i);
    Admit(a, name, 1);
    Status(name, "Running", "2026-11-18T10:00:00Z");
  }
  EXPECT_TRUE(Eventually([&] { return Charges().find("[-]") == std::string::npos; }, kWait))
      << Charges();
  clock_.Set(Time("2026-11-18T12:00:00Z"));
  for (int i = 0; i < 5; ++i) {
    // Finished now, so a final DELETE that overtakes the watch's news ends it at the same time.
    Status("job-" + std::to_string(i), "Failed", "2026-11-18T10:00:00Z", "2026-11-18T12:00:00Z");
  }
  std::vector<std::thread> racers;
  for (Replica* r : {&a, &b}) {
    racers.emplace_back([r] {
      for (int pass = 0; pass < 20; ++pass) r->ledger->ReconcileOnce();
    });
    racers.emplace_back([r] {
      for (int i = 0; i < 5; ++i) {
        (void)r->ledger->Release({"team-a", "job-" + std::to_string(i), ""});
      }
    });
  }
  for (std::thread& t : racers) t.join();
  EXPECT_TRUE(Eventually([&] { return Charges().empty(); }, kWait)) << Charges();
  EXPECT_EQ(Book(), "team-a/nvidia.com/gpu 2026-11-18=10h");
  // Both replicas read the same figure from the shared record.
  EXPECT_TRUE(Eventually(
      [&] {
        return November(*a.usage, "2026-11-18T12:00:00Z") == 10 * kGpuHour &&
               November(*b.usage, "2026-11-18T12:00:00Z") == 10 * kGpuHour;
      },
      kWait));
}

// A replica restarts mid-period (a new ledger on the same API) and the watches relist: the book
// carries on from what the record holds, nothing counted twice or lost.
TEST_F(ClusterUsageTest, ARestartAndARelistMidPeriodNeitherLoseNorRecount) {
  usage::UsageConfig config;
  config.budgets.push_back({.pattern = "team-a",
                            .period = {usage::PeriodKind::kMonth},
                            .gpuHours = {{kGpu, 10 * kMilli}}});
  std::string before;
  {
    Replica first = MakeReplica(config);
    Admit(first, "done", 1);
    Admit(first, "running", 2);
    Status("done", "Running", "2026-11-18T08:00:00Z");
    Status("running", "Running", "2026-11-18T09:00:00Z");
    EXPECT_TRUE(Eventually([&] { return Charges().find("[-]") == std::string::npos; }, kWait));
    clock_.Set(Time("2026-11-18T11:00:00Z"));
    Status("done", "Succeeded", "2026-11-18T08:00:00Z", "2026-11-18T10:00:00Z");
    EXPECT_TRUE(Eventually([&] { return Charges() == "running[2026-11-18T09:00:00.000Z]"; }, kWait))
        << Charges();
    before = Book();
    EXPECT_EQ(before, "team-a/nvidia.com/gpu 2026-11-18=2h");
  }  // stopped, as a killed replica is: only what the API holds survives

  Replica restarted = MakeReplica(config);
  // 2 finished + 2 GPUs running for 3 h: 8 of 10 GPU-hours, the early warning.
  EXPECT_EQ(restarted.usage->Check("team-a", {{kGpu, kMilli}}, Sec("2026-11-18T12:00:00Z")).message,
            "GPU-hour budget 80% spent: team-a, used: nvidia.com/gpu=8, limited: nvidia.com/gpu=10 "
            "GPU-hours in month 2026-11 (UTC); renews at 2026-12-01T00:00:00+00:00");
  // A relist (the watch's history expired) shows the same pods and records: nothing changes.
  api_.ExpireHistory();
  api_.BreakWatches();
  clock_.Set(Time("2026-11-18T12:00:00Z"));
  for (int pass = 0; pass < 5; ++pass) restarted.ledger->ReconcileOnce();
  EXPECT_EQ(Book(), before);
  EXPECT_EQ(Charges(), "running[2026-11-18T09:00:00.000Z]");
  Status("running", "Succeeded", "2026-11-18T09:00:00Z", "2026-11-18T12:00:00Z");
  EXPECT_TRUE(Eventually([&] { return Charges().empty(); }, kWait)) << Charges();
  EXPECT_EQ(Book(), "team-a/nvidia.com/gpu 2026-11-18=8h");
  EXPECT_TRUE(Eventually(
      [&] {
        return restarted.usage->Check("team-a", {{kGpu, kMilli}}, Sec("2026-11-18T13:00:00Z"))
                   .state == usage::BudgetState::kNearing;
      },
      kWait));
}

// A pod running across the end of October: November's budget counts its November hours only, and
// its finish splits the book at midnight.
TEST_F(ClusterUsageTest, APeriodBoundaryCrossedByARunningPod) {
  usage::UsageConfig config;
  config.budgets.push_back({.pattern = "team-a",
                            .period = {usage::PeriodKind::kMonth},
                            .gpuHours = {{kGpu, 2 * kMilli}}});
  clock_.Set(Time("2026-10-31T21:00:00Z"));
  Replica r = MakeReplica(config);
  Admit(r, "trainer", 1);
  Status("trainer", "Running", "2026-10-31T22:00:00Z");
  EXPECT_TRUE(Eventually([&] { return Charges() == "trainer[2026-10-31T22:00:00.000Z]"; }, kWait));
  // At 23:59 October has had 1.98 of its 2 GPU-hours: the early warning (once this replica's
  // watch has brought the start).
  EXPECT_TRUE(Eventually(
      [&] {
        return r.usage->Check("team-a", {{kGpu, kMilli}}, Sec("2026-10-31T23:59:00Z")).state ==
               usage::BudgetState::kNearing;
      },
      kWait));
  // An hour into November, November has had one: its October hours do not count.
  EXPECT_EQ(r.usage->Check("team-a", {{kGpu, kMilli}}, Sec("2026-11-01T01:00:00Z")).state,
            usage::BudgetState::kWithin);
  clock_.Set(Time("2026-11-01T03:30:00Z"));
  Status("trainer", "Succeeded", "2026-10-31T22:00:00Z", "2026-11-01T03:00:00Z");
  EXPECT_TRUE(Eventually([&] { return Charges().empty(); }, kWait)) << Charges();
  EXPECT_EQ(Book(), "team-a/nvidia.com/gpu 2026-10-31=2h 2026-11-01=3h");
  // Once this replica's watch shows the record the finish wrote (the charge gone, its usage in
  // the book):
  const std::string spent =
      "exceeded GPU-hour budget: team-a, used: nvidia.com/gpu=3, limited: nvidia.com/gpu=2 "
      "GPU-hours in month 2026-11 (UTC); renews at 2026-12-01T00:00:00+00:00";
  EXPECT_TRUE(Eventually(
      [&] {
        return r.usage->Check("team-a", {{kGpu, kMilli}}, Sec("2026-11-01T04:00:00Z")).message ==
               spent;
      },
      kWait))
      << r.usage->Check("team-a", {{kGpu, kMilli}}, Sec("2026-11-01T04:00:00Z")).message;
}

// The book's size bound: a finished pod whose usage would take the book past it is left
// unrecorded, and that is logged; its charge is released all the same.
TEST_F(ClusterUsageTest, AnAccrualPastTheSizeBoundIsLoggedAndTheChargeStillReleased) {
  usage::UsageConfig config;
  config.maxRecordBytes = 100;  // less than a book with one key
  Replica r = MakeReplica(config);
  Admit(r, "trainer", 1);
  Status("trainer", "Running", "2026-11-18T09:00:00Z");
  EXPECT_TRUE(Eventually([&] { return Charges() == "trainer[2026-11-18T09:00:00.000Z]"; }, kWait));
  Status("trainer", "Succeeded", "2026-11-18T09:00:00Z", "2026-11-18T09:30:00Z");
  EXPECT_TRUE(Eventually([&] { return Charges().empty(); }, kWait)) << Charges();
  EXPECT_EQ(Book(config), "absent");
  // Logged once the write that released it has landed.
  EXPECT_TRUE(Eventually(
      [&] {
        for (const std::string& m : Logged()) {
          if (m.find("usage of team-a/trainer") != std::string::npos) return true;
        }
        return false;
      },
      kWait));
}

}  // namespace
}  // namespace gpugate::cluster
