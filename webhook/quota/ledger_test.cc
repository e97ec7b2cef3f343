#include "quota/ledger.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <latch>
#include <limits>
#include <thread>

#include "quota/testing.h"
#include "support/temp_dir.h"

namespace gpugate::quota {
namespace {

using testutil::Outcome;
using testutil::RenderUsage;

namespace fs = std::filesystem;
constexpr const char* kGpu = "nvidia.com/gpu";

Amounts Gpus(int64_t n) { return {{kGpu, n * kMilli}}; }

// team-a: 4 GPUs and 6 gpu-equivalents; team-z: none at all; team-b: only a vCUDA limit.
QuotaConfig TestConfig() {
  QuotaConfig config;
  config.limits["team-a"] = {{kGpu, 4 * kMilli}, {"gpu-equivalents", 6 * kMilli}};
  config.limits["team-b"] = {{"tencent.com/vcuda-core", 400 * kMilli}};
  config.limits["team-z"] = {{kGpu, 0}};
  return config;
}

// "team-a/p1@u1{nvidia.com/gpu=1} ...", sorted by namespace/name.
std::string RenderCharges(const Ledger& ledger) {
  std::string out;
  for (const Charge& c : ledger.Charges()) {
    if (!out.empty()) out += ' ';
    out += c.pod.ns + "/" + c.pod.name + "@" + c.pod.uid + "{" + FormatAmounts(c.amounts) + "}";
  }
  return out;
}

// One step of a scenario: an operation, what it returns, and the usage afterwards.
struct Step {
  // kUnenforced and kUnenforcedDryRun: enforce false, as for the quota rule in warn or audit.
  enum Op { kReserve, kDryRun, kUnenforced, kUnenforcedDryRun, kRelease } op;
  PodRef pod;
  Amounts amounts;
  std::string want;
  std::string usage;
};

void RunSteps(Ledger& ledger, const std::vector<Step>& steps) {
  for (size_t i = 0; i < steps.size(); ++i) {
    const Step& s = steps[i];
    SCOPED_TRACE("step " + std::to_string(i) + ": " + s.pod.ns + "/" + s.pod.name);
    const bool unenforced = s.op == Step::kUnenforced || s.op == Step::kUnenforcedDryRun;
    const bool dryRun = s.op == Step::kDryRun || s.op == Step::kUnenforcedDryRun;
    std::string got =
        s.op == Step::kRelease
            ? Outcome(ledger.Release(s.pod))
            : Outcome(ledger.Reserve(ReserveRequest{
                  .pod = s.pod, .amounts = s.amounts, .dryRun = dryRun, .enforce = !unenforced}));
    EXPECT_EQ(got, s.want);
    EXPECT_EQ(RenderUsage(ledger, s.pod.ns), s.usage);
  }
}

constexpr auto kReserve = Step::kReserve;
constexpr auto kDryRun = Step::kDryRun;
constexpr auto kRelease = Step::kRelease;
constexpr auto kUnenforced = Step::kUnenforced;
constexpr auto kUnenforcedDryRun = Step::kUnenforcedDryRun;

TEST(LedgerTest, ChargesUpToTheLimitThenDeniesWithKubernetesMessage) {
  Ledger ledger(TestConfig(), nullptr);
  RunSteps(
      ledger,
      {
          {kReserve,
           {"team-a", "p1", "u1"},
           Gpus(3),
           "charged",
           "team-a{gpu-equivalents=0/6,nvidia.com/gpu=3/4}"},
          {kReserve,
           {"team-a", "p2", "u2"},
           Gpus(1),
           "charged",
           "team-a{gpu-equivalents=0/6,nvidia.com/gpu=4/4}"},
          {kReserve,
           {"team-a", "p3", "u3"},
           Gpus(1),
           "exceeded quota: team-a, requested: nvidia.com/gpu=1, used: nvidia.com/gpu=4, "
           "limited: nvidia.com/gpu=4",
           "team-a{gpu-equivalents=0/6,nvidia.com/gpu=4/4}"},
          {kReserve,
           {"team-z", "p1", "u1"},
           Gpus(1),
           "exceeded quota: team-z, requested: nvidia.com/gpu=1, used: nvidia.com/gpu=0, "
           "limited: nvidia.com/gpu=0",
           "team-z{nvidia.com/gpu=0/0}"},
          {kReserve, {"team-z", "cpu-only", "u2"}, {}, "charged", "team-z{nvidia.com/gpu=0/0}"},
      });
  EXPECT_EQ(RenderCharges(ledger),
            "team-a/p1@u1{nvidia.com/gpu=3} team-a/p2@u2{nvidia.com/gpu=1} team-z/cpu-only@u2{}");
}

// The quota rule in warn or audit mode: over the limit is charged all the same, with the message
// a refusal would have had, and an enforced charge afterwards is refused against that usage.
TEST(LedgerTest, UnenforcedChargesGoOverTheLimitAndSaySo) {
  Ledger ledger(TestConfig(), nullptr);
  RunSteps(
      ledger,
      {
          {kUnenforced,
           {"team-a", "p1", "u1"},
           Gpus(3),
           "charged",
           "team-a{gpu-equivalents=0/6,nvidia.com/gpu=3/4}"},
          {kUnenforcedDryRun,
           {"team-a", "p2", "u2"},
           Gpus(2),
           "charged over the limit: exceeded quota: team-a, requested: nvidia.com/gpu=2, used: "
           "nvidia.com/gpu=3, limited: nvidia.com/gpu=4",
           "team-a{gpu-equivalents=0/6,nvidia.com/gpu=3/4}"},
          {kUnenforced,
           {"team-a", "p2", "u2"},
           Gpus(2),
           "charged over the limit: exceeded quota: team-a, requested: nvidia.com/gpu=2, used: "
           "nvidia.com/gpu=3, limited: nvidia.com/gpu=4",
           "team-a{gpu-equivalents=0/6,nvidia.com/gpu=5/4}"},
          {kUnenforced,
           {"team-a", "p2", "u2"},
           Gpus(2),
           "already charged",
           "team-a{gpu-equivalents=0/6,nvidia.com/gpu=5/4}"},
          {kReserve,
           {"team-a", "p3", "u3"},
           Gpus(1),
           "exceeded quota: team-a, requested: nvidia.com/gpu=1, used: nvidia.com/gpu=5, "
           "limited: nvidia.com/gpu=4",
           "team-a{gpu-equivalents=0/6,nvidia.com/gpu=5/4}"},
          {kRelease,
           {"team-a", "p1", "u1"},
           {},
           "released",
           "team-a{gpu-equivalents=0/6,nvidia.com/gpu=2/4}"},
          {kReserve,
           {"team-a", "p3", "u3"},
           Gpus(1),
           "charged",
           "team-a{gpu-equivalents=0/6,nvidia.com/gpu=3/4}"},
      });
}

TEST(LedgerTest, ReleaseGivesBackExactlyWhatWasCharged) {
  Ledger ledger(TestConfig(), nullptr);
  Amounts odd = {{kGpu, 2 * kMilli}, {"gpu-equivalents", 2 * kMilli + 10}};
  RunSteps(ledger, {
                       {kReserve,
                        {"team-a", "p1", "u1"},
                        odd,
                        "charged",
                        "team-a{gpu-equivalents=2.01/6,nvidia.com/gpu=2/4}"},
                       {kReserve,
                        {"team-a", "p2", "u2"},
                        Gpus(1),
                        "charged",
                        "team-a{gpu-equivalents=2.01/6,nvidia.com/gpu=3/4}"},
                       {kRelease,
                        {"team-a", "p1", "u1"},
                        {},
                        "released",
                        "team-a{gpu-equivalents=0/6,nvidia.com/gpu=1/4}"},
                       {kRelease,
                        {"team-a", "p1", "u1"},
                        {},
                        "not released",
                        "team-a{gpu-equivalents=0/6,nvidia.com/gpu=1/4}"},
                       {kRelease,
                        {"team-a", "never", ""},
                        {},
                        "not released",
                        "team-a{gpu-equivalents=0/6,nvidia.com/gpu=1/4}"},
                       {kRelease,
                        {"team-a", "p2", ""},
                        {},
                        "released",  // no uid: whatever is charged
                        "team-a{gpu-equivalents=0/6,nvidia.com/gpu=0/4}"},
                   });
  EXPECT_EQ(RenderCharges(ledger), "");
}

TEST(LedgerTest, RepeatedAdmissionOfTheSamePodChargesOnce) {
  Ledger ledger(TestConfig(), nullptr);
  RunSteps(
      ledger,
      {
          {kReserve,
           {"team-a", "p1", "u1"},
           Gpus(4),
           "charged",
           "team-a{gpu-equivalents=0/6,nvidia.com/gpu=4/4}"},
          {kReserve,
           {"team-a", "p1", "u1"},
           Gpus(4),
           "already charged",
           "team-a{gpu-equivalents=0/6,nvidia.com/gpu=4/4}"},
          {kDryRun,
           {"team-a", "p1", "u1"},
           Gpus(4),
           "already charged",
           "team-a{gpu-equivalents=0/6,nvidia.com/gpu=4/4}"},
          {kReserve, {"team-c", "p", ""}, Gpus(1), "charged", "team-c{nvidia.com/gpu=1}"},
          {kReserve, {"team-c", "p", ""}, Gpus(1), "already charged", "team-c{nvidia.com/gpu=1}"},
      });
}

TEST(LedgerTest, PodsAreFoundAgainWhateverTheLengthOfTheirNames) {
  // Lookups spell "namespace/name" on the stack up to 320 bytes, and on the heap beyond (only a
  // hand-made review has such a name): both must find the charge the insertion made.
  for (size_t size : {1, 313, 314, 315, 5000}) {  // "team-a/" + 313 bytes is 320
    SCOPED_TRACE("name of " + std::to_string(size) + " bytes");
    Ledger ledger(TestConfig(), nullptr);
    const std::string name(size, 'p');
    RunSteps(ledger, {
                         {kReserve,
                          {"team-a", name, "u1"},
                          Gpus(2),
                          "charged",
                          "team-a{gpu-equivalents=0/6,nvidia.com/gpu=2/4}"},
                         {kReserve,
                          {"team-a", name + "q", "u2"},
                          Gpus(1),
                          "charged",
                          "team-a{gpu-equivalents=0/6,nvidia.com/gpu=3/4}"},
                         {kReserve,
                          {"team-a", name, "u1"},
                          Gpus(2),
                          "already charged",
                          "team-a{gpu-equivalents=0/6,nvidia.com/gpu=3/4}"},
                         {kRelease,
                          {"team-a", name, "u1"},
                          {},
                          "released",
                          "team-a{gpu-equivalents=0/6,nvidia.com/gpu=1/4}"},
                         {kRelease,
                          {"team-a", name, "u1"},
                          {},
                          "not released",
                          "team-a{gpu-equivalents=0/6,nvidia.com/gpu=1/4}"},
                     });
  }
}

TEST(LedgerTest, AnotherUidUnderTheSameNameIsChargedBesideIt) {
  // A duplicate CREATE the apiserver will refuse (AlreadyExists) looks like a new incarnation.
  // Charging it beside the running pod over-counts until the name is released; replacing would
  // let a smaller duplicate erase the running pod's charge and admit past the limit.
  Ledger ledger(TestConfig(), nullptr);
  RunSteps(ledger,
           {
               {kReserve,
                {"team-a", "p1", "running"},
                Gpus(3),
                "charged",
                "team-a{gpu-equivalents=0/6,nvidia.com/gpu=3/4}"},
               {kReserve,
                {"team-a", "p1", "duplicate"},
                Gpus(1),
                "charged",
                "team-a{gpu-equivalents=0/6,nvidia.com/gpu=4/4}"},
               {kReserve,
                {"team-a", "p2", "other"},
                Gpus(1),
                "exceeded quota: team-a, requested: nvidia.com/gpu=1, used: nvidia.com/gpu=4, "
                "limited: nvidia.com/gpu=4",
                "team-a{gpu-equivalents=0/6,nvidia.com/gpu=4/4}"},
               {kReserve,
                {"team-a", "p1", "running"},
                Gpus(3),
                "already charged",
                "team-a{gpu-equivalents=0/6,nvidia.com/gpu=4/4}"},
           });
  EXPECT_EQ(RenderCharges(ledger),
            "team-a/p1@duplicate{nvidia.com/gpu=1} team-a/p1@running{nvidia.com/gpu=3}");
}

TEST(LedgerTest, ReleaseFreesEveryChargeUnderTheName) {
  // Names are unique among live pods: the DELETE (or terminal status) of the pod holding the
  // name ends every charge made under it, whichever uid the caller names.
  Ledger ledger(TestConfig(), nullptr);
  RunSteps(ledger, {
                       {kReserve,
                        {"team-a", "p1", "running"},
                        Gpus(3),
                        "charged",
                        "team-a{gpu-equivalents=0/6,nvidia.com/gpu=3/4}"},
                       {kReserve,
                        {"team-a", "p1", "duplicate"},
                        Gpus(1),
                        "charged",
                        "team-a{gpu-equivalents=0/6,nvidia.com/gpu=4/4}"},
                       {kRelease,
                        {"team-a", "p1", "running"},
                        {},
                        "released",
                        "team-a{gpu-equivalents=0/6,nvidia.com/gpu=0/4}"},
                       {kRelease,
                        {"team-a", "p1", "running"},
                        {},
                        "not released",
                        "team-a{gpu-equivalents=0/6,nvidia.com/gpu=0/4}"},
                   });
  EXPECT_EQ(RenderCharges(ledger), "");
}

TEST(LedgerTest, DryRunNeverCharges) {
  Ledger ledger(TestConfig(), nullptr);
  RunSteps(ledger,
           {
               {kDryRun,
                {"team-a", "p1", "u1"},
                Gpus(4),
                "charged",
                "team-a{gpu-equivalents=0/6,nvidia.com/gpu=0/4}"},
               {kDryRun,
                {"team-a", "p1", "u1"},
                Gpus(5),
                "exceeded quota: team-a, requested: nvidia.com/gpu=5, used: nvidia.com/gpu=0, "
                "limited: nvidia.com/gpu=4",
                "team-a{gpu-equivalents=0/6,nvidia.com/gpu=0/4}"},
               {kDryRun, {"team-c", "p1", "u1"}, Gpus(1), "charged", ""},
           });
  EXPECT_EQ(RenderCharges(ledger), "");
}

TEST(LedgerTest, NamespaceWithoutLimitsIsTrackedAndForgottenWhenEmpty) {
  Ledger ledger(TestConfig(), nullptr);
  RunSteps(
      ledger,
      {
          {kReserve, {"team-c", "p1", "u1"}, Gpus(100), "charged", "team-c{nvidia.com/gpu=100}"},
          {kReserve,
           {"team-c", "p2", "u2"},
           {{"amd.com/gpu", 1000}},
           "charged",
           "team-c{amd.com/gpu=1,nvidia.com/gpu=100}"},
          {kRelease, {"team-c", "p1", "u1"}, {}, "released", "team-c{amd.com/gpu=1}"},
          {kRelease, {"team-c", "p2", "u2"}, {}, "released", ""},
      });
  // A resource the limit does not name is tracked without a hard figure.
  RunSteps(ledger, {{kReserve,
                     {"team-b", "p", "u"},
                     {{kGpu, 1000}, {"tencent.com/vcuda-core", 50000}},
                     "charged",
                     "team-b{nvidia.com/gpu=1,tencent.com/vcuda-core=50/400}"}});
  EXPECT_EQ(RenderUsage(ledger),
            "team-a{gpu-equivalents=0/6,nvidia.com/gpu=0/4} "
            "team-b{nvidia.com/gpu=1,tencent.com/vcuda-core=50/400} team-z{nvidia.com/gpu=0/0}");
}

TEST(LedgerTest, WeightedFiguresAreJustResourceNames) {
  Ledger ledger(TestConfig(), nullptr);
  RunSteps(
      ledger,
      {
          {kReserve,
           {"team-a", "p1", "u1"},
           {{kGpu, 3000}, {"gpu-equivalents", 5500}},
           "charged",
           "team-a{gpu-equivalents=5.5/6,nvidia.com/gpu=3/4}"},
          {kReserve,
           {"team-a", "p2", "u2"},
           {{kGpu, 1000}, {"gpu-equivalents", 510}},
           "exceeded quota: team-a, requested: gpu-equivalents=0.51, used: gpu-equivalents=5.5, "
           "limited: gpu-equivalents=6",
           "team-a{gpu-equivalents=5.5/6,nvidia.com/gpu=3/4}"},
          {kReserve,
           {"team-a", "p2", "u2"},
           {{kGpu, 2000}, {"gpu-equivalents", 1000}},
           "exceeded quota: team-a, requested: gpu-equivalents=1,nvidia.com/gpu=2, "
           "used: gpu-equivalents=5.5,nvidia.com/gpu=3, limited: "
           "gpu-equivalents=6,nvidia.com/gpu=4",
           "team-a{gpu-equivalents=5.5/6,nvidia.com/gpu=3/4}"},
          {kReserve,
           {"team-a", "p2", "u2"},
           {{kGpu, 1000}, {"gpu-equivalents", 500}},
           "charged",
           "team-a{gpu-equivalents=6/6,nvidia.com/gpu=4/4}"},
      });
}

TEST(LedgerTest, RefusesNegativeAmounts) {
  Ledger ledger(TestConfig(), nullptr);
  EXPECT_EQ(Outcome(ledger.Reserve({"team-a", "p", "u"}, {{kGpu, -1000}}, false)),
            "error: negative charge nvidia.com/gpu=-1");
  EXPECT_EQ(RenderCharges(ledger), "");
}

// Pod charges saturate at int64's maximum; a total that wrapped past it would turn negative and
// make every later check and release wrong, so that charge is refused, limit or none.
TEST(LedgerTest, RefusesAChargeThatWouldOverflowATotal) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  const std::string kRefused =
      "error: team-c's nvidia.com/gpu total would pass 9223372036854775.807, the most the "
      "ledger counts";
  Ledger ledger(TestConfig(), nullptr);
  RunSteps(
      ledger,
      {
          {kReserve, {"team-c", "p1", "u1"}, Gpus(1), "charged", "team-c{nvidia.com/gpu=1}"},
          {kReserve,
           {"team-c", "huge", "u2"},
           {{kGpu, kMax}},
           kRefused,
           "team-c{nvidia.com/gpu=1}"},
          {kDryRun, {"team-c", "huge", "u2"}, {{kGpu, kMax}}, kRefused, "team-c{nvidia.com/gpu=1}"},
          {kRelease, {"team-c", "p1", "u1"}, {}, "released", ""},
          {kReserve,
           {"team-c", "huge", "u2"},
           {{kGpu, kMax}},
           "charged",
           "team-c{nvidia.com/gpu=9223372036854775.807}"},
          {kRelease, {"team-c", "huge", "u2"}, {}, "released", ""},
      });
}

TEST(LedgerTest, ConcurrentReservesNeverAdmitPastTheLimit) {
  QuotaConfig config;
  config.limits["team-a"] = Gpus(10);
  Ledger ledger(config, nullptr);
  constexpr int kThreads = 40;
  std::latch start(kThreads);
  std::vector<std::string> outcomes(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      start.arrive_and_wait();
      std::string name = "p" + std::to_string(i);
      outcomes[i] = Outcome(ledger.Reserve({"team-a", name, "u" + name}, Gpus(1), false));
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(std::count(outcomes.begin(), outcomes.end(), "charged"), 10);
  EXPECT_EQ(std::count(outcomes.begin(), outcomes.end(),
                       "exceeded quota: team-a, requested: nvidia.com/gpu=1, used: "
                       "nvidia.com/gpu=10, limited: nvidia.com/gpu=10"),
            30);
  EXPECT_EQ(RenderUsage(ledger), "team-a{nvidia.com/gpu=10/10}");
  EXPECT_EQ(ledger.Charges().size(), 10u);
}

using testutil::JournalScript;
using testutil::ScriptedJournal;
using T = JournalRecord::Type;

TEST(LedgerJournal, ReplayChargesBesideAndReleasesByName) {
  JournalScript script;
  script.replay = {
      {T::kCharge, "team-a", "p1", "u1", Gpus(1)},
      {T::kCharge, "team-a", "p2", "u2", Gpus(2)},
      {T::kCharge, "team-a", "p1", "u9", Gpus(3)},  // another uid under p1: beside u1
      {T::kCharge, "team-a", "p4", "u4", Gpus(2)},
      {T::kRelease, "team-a", "p4", "other", {}},  // a release frees the name, whatever the uid
      {T::kCharge, "team-c", "p3", "", Gpus(1)},
      {T::kRelease, "team-c", "p3", "", {}},
      {T::kRelease, "team-c", "unknown", "", {}},
  };
  Ledger ledger(TestConfig(), std::make_unique<ScriptedJournal>(&script));
  ASSERT_TRUE(ledger.Open().has_value());
  EXPECT_EQ(RenderCharges(ledger),
            "team-a/p1@u1{nvidia.com/gpu=1} team-a/p1@u9{nvidia.com/gpu=3} "
            "team-a/p2@u2{nvidia.com/gpu=2}");
  // Over the limit after a config change: shown as it is, and nothing more fits.
  EXPECT_EQ(RenderUsage(ledger),
            "team-a{gpu-equivalents=0/6,nvidia.com/gpu=6/4} "
            "team-b{tencent.com/vcuda-core=0/400} team-z{nvidia.com/gpu=0/0}");
  EXPECT_EQ(Outcome(ledger.Release({"team-a", "p2", ""})), "released");
  EXPECT_EQ(script.appended, (std::vector<JournalRecord>{{T::kRelease, "team-a", "p2", "", {}}}));
}

TEST(LedgerJournal, FailedAppendChangesNothing) {
  JournalScript script;
  Ledger ledger(TestConfig(), std::make_unique<ScriptedJournal>(&script));
  EXPECT_EQ(Outcome(ledger.Reserve({"team-a", "p0", "u0"}, Gpus(1), false)),
            "error: quota ledger used before Open");
  EXPECT_EQ(Outcome(ledger.Release({"team-a", "p0", "u0"})),
            "error: quota ledger used before Open");
  ASSERT_TRUE(ledger.Open().has_value());
  EXPECT_EQ(ledger.Open().error().message, "quota ledger opened twice");
  ASSERT_EQ(Outcome(ledger.Reserve({"team-a", "p1", "u1"}, Gpus(1), false)), "charged");
  EXPECT_EQ(Outcome(ledger.Reserve({"team-a", "p1", "u1"}, Gpus(1), true)), "already charged");
  script.failAppends = true;
  EXPECT_EQ(Outcome(ledger.Reserve({"team-a", "p2", "u2"}, Gpus(1), false)), "error: disk full");
  EXPECT_EQ(Outcome(ledger.Reserve({"team-a", "p1", "u9"}, Gpus(2), false)), "error: disk full");
  EXPECT_EQ(Outcome(ledger.Release({"team-a", "p1", "u1"})), "error: disk full");
  EXPECT_EQ(Outcome(ledger.Reserve({"team-a", "p3", "u3"}, Gpus(1), true)), "charged");  // dry
  EXPECT_EQ(RenderCharges(ledger), "team-a/p1@u1{nvidia.com/gpu=1}");
  EXPECT_EQ(RenderUsage(ledger, "team-a"), "team-a{gpu-equivalents=0/6,nvidia.com/gpu=1/4}");
  EXPECT_EQ(script.appended,
            (std::vector<JournalRecord>{{T::kCharge, "team-a", "p1", "u1", Gpus(1)}}));
}

// A charge over the limit is an ordinary charge on disk: a restart replays it, limits unchanged.
TEST(LedgerJournal, AnUnenforcedChargeOverTheLimitSurvivesARestart) {
  JournalScript script;
  {
    Ledger ledger(TestConfig(), std::make_unique<ScriptedJournal>(&script));
    ASSERT_TRUE(ledger.Open().has_value());
    ASSERT_EQ(Outcome(ledger.Reserve(
                  {.pod = {"team-a", "big", "u1"}, .amounts = Gpus(6), .enforce = false})),
              "charged over the limit: exceeded quota: team-a, requested: nvidia.com/gpu=6, "
              "used: nvidia.com/gpu=0, limited: nvidia.com/gpu=4");
  }
  EXPECT_EQ(script.appended,
            (std::vector<JournalRecord>{{T::kCharge, "team-a", "big", "u1", Gpus(6)}}));
  script.replay = script.appended;
  Ledger restarted(TestConfig(), std::make_unique<ScriptedJournal>(&script));
  ASSERT_TRUE(restarted.Open().has_value());
  EXPECT_EQ(RenderUsage(restarted, "team-a"), "team-a{gpu-equivalents=0/6,nvidia.com/gpu=6/4}");
}

TEST(LedgerJournal, CompactsToTheLiveSetWhenTheJournalAsks) {
  JournalScript script;
  Ledger ledger(TestConfig(), std::make_unique<ScriptedJournal>(&script));
  ASSERT_TRUE(ledger.Open().has_value());
  ASSERT_EQ(Outcome(ledger.Reserve({"team-c", "b", "ub"}, Gpus(2), false)), "charged");
  ASSERT_EQ(Outcome(ledger.Reserve({"team-a", "a", "ua"}, Gpus(1), false)), "charged");
  EXPECT_TRUE(script.compactions.empty());
  script.wantCompaction = script.failCompaction = true;
  // A failed compaction does not fail the admission: the journal still holds every record.
  ASSERT_EQ(Outcome(ledger.Reserve({"team-a", "c", "uc"}, Gpus(1), false)), "charged");
  script.failCompaction = false;
  ASSERT_EQ(Outcome(ledger.Release({"team-c", "b", ""})), "released");
  ASSERT_EQ(Outcome(ledger.Reserve({"team-a", "c", "uc"}, Gpus(1), false)), "already charged");
  ASSERT_EQ(script.compactions.size(), 2u);
  EXPECT_EQ(script.compactions[1], (std::vector<JournalRecord>{
                                       {T::kCharge, "team-a", "a", "ua", Gpus(1)},
                                       {T::kCharge, "team-a", "c", "uc", Gpus(1)},
                                   }));
}

class LedgerFileTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_FALSE(tmp_.path().empty()); }

  std::unique_ptr<Ledger> OpenLedger() {
    Result<std::unique_ptr<Journal>> journal =
        OpenFileJournal((dir_ / "state" / "ledger").string());
    EXPECT_TRUE(journal.has_value()) << journal.error().message;
    if (!journal) return nullptr;
    auto ledger = std::make_unique<Ledger>(TestConfig(), std::move(*journal));
    Status opened = ledger->Open();
    EXPECT_TRUE(opened.has_value()) << opened.error().message;
    return ledger;
  }

  gpugate::testing::TempDir tmp_{"gpugate-ledger-"};  // removed with the fixture
  fs::path dir_ = tmp_.path();
};

TEST_F(LedgerFileTest, ANewLedgerOnTheSameFileHasTheSameState) {
  std::string charges, usage;
  {
    std::unique_ptr<Ledger> ledger = OpenLedger();
    ASSERT_TRUE(ledger);
    RunSteps(*ledger,
             {
                 {kReserve,
                  {"team-a", "p1", "u1"},
                  Gpus(3),
                  "charged",
                  "team-a{gpu-equivalents=0/6,nvidia.com/gpu=3/4}"},
                 {kReserve,
                  {"team-a", "p2", "u2"},
                  {{kGpu, 1000}, {"gpu-equivalents", 1010}},
                  "charged",
                  "team-a{gpu-equivalents=1.01/6,nvidia.com/gpu=4/4}"},
                 {kDryRun, {"team-c", "dry", "u"}, Gpus(1), "charged", ""},
                 {kReserve, {"team-c", "p3", ""}, Gpus(7), "charged", "team-c{nvidia.com/gpu=7}"},
                 {kReserve,
                  {"team-a", "p1", "u1b"},
                  Gpus(1),
                  "exceeded quota: team-a, requested: nvidia.com/gpu=1, used: nvidia.com/gpu=4, "
                  "limited: nvidia.com/gpu=4",
                  "team-a{gpu-equivalents=1.01/6,nvidia.com/gpu=4/4}"},
                 {kRelease,
                  {"team-a", "p2", "u2"},
                  {},
                  "released",
                  "team-a{gpu-equivalents=0/6,nvidia.com/gpu=3/4}"},
                 {kRelease,
                  {"team-a", "p1", "u1"},
                  {},
                  "released",
                  "team-a{gpu-equivalents=0/6,nvidia.com/gpu=0/4}"},
                 {kReserve,
                  {"team-a", "p5", "u5"},
                  Gpus(2),
                  "charged",
                  "team-a{gpu-equivalents=0/6,nvidia.com/gpu=2/4}"},
             });
    charges = RenderCharges(*ledger);
    usage = RenderUsage(*ledger);
  }
  EXPECT_EQ(charges, "team-a/p5@u5{nvidia.com/gpu=2} team-c/p3@{nvidia.com/gpu=7}");
  std::unique_ptr<Ledger> reopened = OpenLedger();
  ASSERT_TRUE(reopened);
  EXPECT_EQ(RenderCharges(*reopened), charges);
  EXPECT_EQ(RenderUsage(*reopened), usage);
}

}  // namespace
}  // namespace gpugate::quota
