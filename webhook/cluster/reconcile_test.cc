#include "cluster/reconcile.h"

#include <gtest/gtest.h>

#include "cluster/charge_batch.h"
#include "usage/book_codec.h"

namespace gpugate::cluster {
namespace {

using quota::kMilli;
using std::chrono::milliseconds;
using std::chrono::seconds;

const WallClock::time_point kNow = WallClock::time_point(seconds(1'000'000));

quota::Amounts Gpus(int64_t n) { return {{"nvidia.com/gpu", n * kMilli}}; }

// "p1@u1 p1@u2+" : name@uid, '+' marking a charge stamped now (added by the reconciler).
std::string Render(const ChargeMap& charges) {
  std::string out;
  for (const auto& [name, list] : charges) {
    for (const RecordedCharge& c : list) {
      if (!out.empty()) out += ' ';
      out += name + "@" + c.uid + (c.admitted == kNow ? "+" : "");
    }
  }
  return out;
}

struct Case {
  const char* name;
  ChargeMap charges;
  PodMap pods;
  bool podsFresh;
  const char* want;
};

TEST(ClusterLedgerReconcileTest, DesiredCharges) {
  const auto young = kNow - seconds(10);  // within the 60 s grace
  const auto old = kNow - seconds(61);
  PodInfo running{.uid = "u1", .amounts = Gpus(1)};
  PodInfo finished{.uid = "u1", .terminal = true, .amounts = Gpus(1)};
  PodInfo deleting{.uid = "u1", .deleting = true, .amounts = Gpus(1)};
  PodInfo other{.uid = "u2", .amounts = Gpus(1)};
  // Being deleted, counting until deletionTimestamp + grace (PodInfo::releaseAt).
  auto terminating = [](WallClock::time_point releaseAt) {
    return PodInfo{.uid = "u1", .deleting = true, .amounts = Gpus(1), .releaseAt = releaseAt};
  };
  const Case cases[] = {
      {"running pod keeps its charge",
       {{"p", {{"u1", old, Gpus(1)}}}},
       {{"p", running}},
       true,
       "p@u1"},
      {"terminal pod frees it", {{"p", {{"u1", young, Gpus(1)}}}}, {{"p", finished}}, true, ""},
      {"terminal frees it even when the watch is not live",
       {{"p", {{"u1", young, Gpus(1)}}}},
       {{"p", finished}},
       false,
       ""},
      {"pod being deleted keeps it",
       {{"p", {{"u1", old, Gpus(1)}}}},
       {{"p", deleting}},
       true,
       "p@u1"},
      {"pod terminating within its grace period keeps it",
       {{"p", {{"u1", old, Gpus(1)}}}},
       {{"p", terminating(kNow + seconds(5))}},
       true,
       "p@u1"},
      {"pod terminating at the very end of its grace period keeps it",
       {{"p", {{"u1", old, Gpus(1)}}}},
       {{"p", terminating(kNow)}},
       true,
       "p@u1"},
      {"pod stuck terminating past its grace period frees it",
       {{"p", {{"u1", old, Gpus(1)}}}},
       {{"p", terminating(kNow - milliseconds(1))}},
       true,
       ""},
      {"stuck terminating frees it even when the watch is not live",
       {{"p", {{"u1", old, Gpus(1)}}}},
       {{"p", terminating(kNow - seconds(1))}},
       false,
       ""},
      {"absent pod, young charge: on its way", {{"p", {{"u1", young, Gpus(1)}}}}, {}, true, "p@u1"},
      {"absent pod, old charge: dropped", {{"p", {{"u1", old, Gpus(1)}}}}, {}, true, ""},
      {"absent pod, old charge, watch not live: kept",
       {{"p", {{"u1", old, Gpus(1)}}}},
       {},
       false,
       "p@u1"},
      {"another uid holds the name: old charge dropped, new pod charged",
       {{"p", {{"u1", old, Gpus(1)}}}},
       {{"p", other}},
       true,
       "p@u2+"},
      {"another uid, young charge kept beside",
       {{"p", {{"u1", young, Gpus(1)}}}},
       {{"p", other}},
       true,
       "p@u1 p@u2+"},
      {"uncharged running pod charged", {}, {{"p", running}, {"q", other}}, true, "p@u1+ q@u2+"},
      {"uncharged pod not charged while the watch is not live", {}, {{"p", running}}, false, ""},
      {"uncharged terminal or deleting pods are not charged",
       {},
       {{"p", finished}, {"q", deleting}},
       true,
       ""},
  };
  for (const Case& c : cases) {
    ReconcileContext context{kNow, seconds(60), c.podsFresh};
    EXPECT_EQ(Render(DesiredCharges(c.charges, c.pods, context)), c.want) << c.name;
  }
}

TEST(ClusterLedgerReconcileTest, AddedChargeCarriesThePodsAmounts) {
  PodMap pods = {{"p", PodInfo{.uid = "u1", .amounts = Gpus(3)}}};
  ChargeMap desired = DesiredCharges({}, pods, {kNow, seconds(60), true});
  ASSERT_EQ(desired["p"].size(), 1u);
  EXPECT_EQ(desired["p"][0], (RecordedCharge{"u1", kNow, Gpus(3)}));
}

TEST(ClusterLedgerReconcileTest, RecordsStartsTheWatchShows) {
  const auto old = kNow - seconds(61);
  const auto start = kNow - seconds(30), earlier = kNow - seconds(40);
  struct StartCase {
    const char* name;
    std::optional<WallClock::time_point> recorded;  // the charge's start before
    PodInfo pod;
    std::optional<WallClock::time_point> want;  // p@u1's start after
  };
  const StartCase cases[] = {
      {"the watch shows the start: recorded", std::nullopt,
       PodInfo{.uid = "u1", .amounts = Gpus(1), .started = start}, start},
      {"not started yet: none", std::nullopt, PodInfo{.uid = "u1", .amounts = Gpus(1)},
       std::nullopt},
      {"a recorded start stands", earlier,
       PodInfo{.uid = "u1", .amounts = Gpus(1), .started = start}, earlier},
      {"another uid's start is not this charge's", std::nullopt,
       PodInfo{.uid = "u2", .amounts = Gpus(1), .started = start}, std::nullopt},
  };
  for (const StartCase& c : cases) {
    ChargeMap charges = {{"p", {{"u1", kNow - seconds(5), Gpus(1), c.recorded}}}};
    ChargeMap desired = DesiredCharges(charges, {{"p", c.pod}}, {kNow, seconds(60), true});
    ASSERT_FALSE(desired["p"].empty()) << c.name;
    EXPECT_EQ(desired["p"][0].started, c.want) << c.name;
  }
  // A running pod charged by the reconciler accrues from then: its earlier time may be in the
  // book already (its final DELETE overtook the watch). One not started yet takes its start later.
  PodMap pods = {{"q", PodInfo{.uid = "u9", .amounts = Gpus(2), .started = start}},
                 {"r", PodInfo{.uid = "u8", .amounts = Gpus(1)}}};
  ChargeMap added =
      DesiredCharges({{"p", {{"u1", old, Gpus(1)}}}}, pods, {kNow, seconds(60), true});
  EXPECT_EQ(added["q"], (std::vector<RecordedCharge>{{"u9", kNow, Gpus(2), kNow}}));
  EXPECT_EQ(added["r"], (std::vector<RecordedCharge>{{"u8", kNow, Gpus(1)}}));
}

// The reconciler's write, book included: a finished pod's charge drops and its usage enters the
// book in that same record; a redo from the record it wrote (another replica's pass, a relist)
// finds nothing to drop and accrues nothing.
TEST(ClusterLedgerReconcileTest, RecordAccruesWhatItDropsOnce) {
  const WallClock::time_point kNow = WallClock::from_time_t(1795000000);  // 2026-11-18 11:06:40Z
  const WallClock::time_point start = kNow - std::chrono::hours(2);
  BookSettings book;  // UTC, 13 months, 256 KiB
  RecordBounds bounds{.name = "gpugate", .maxRecordBytes = 1 << 20, .book = &book};
  GpuQuotaRecord record{.ns = "team-a"};
  record.charges = {{"done", {{"u1", start, Gpus(2), start}}},
                    {"never", {{"u2", start, Gpus(1)}}},
                    {"running", {{"u3", start, Gpus(1)}}}};
  PodMap pods = {
      {"done",
       PodInfo{.uid = "u1", .terminal = true, .amounts = Gpus(2), .ended = kNow - seconds(600)}},
      {"never", PodInfo{.uid = "u2", .terminal = true, .amounts = Gpus(1), .ended = kNow}},
      {"running", PodInfo{.uid = "u3", .amounts = Gpus(1), .started = start + seconds(60)}}};
  ReconcileContext context{kNow, seconds(60), true};
  ReconciledRecord first = ReconcileRecord(record, pods, context, bounds);
  EXPECT_EQ(Render(first.next.charges), "running@u3");
  EXPECT_EQ(first.next.charges["running"][0].started, start + seconds(60));
  EXPECT_TRUE(first.problems.empty());
  // 2 GPUs for 1 h 50 min; the pod that never ran adds nothing.
  const int64_t want = 2 * kMilli * (7200 - 600);
  Result<usage::UsageBook> accrued =
      usage::DecodeBook(first.next.usage.dump(), book.zone, book.options);
  ASSERT_TRUE(accrued) << accrued.error().message;
  auto totals = accrued->Totals({usage::sys_seconds{}, usage::sys_seconds::max()});
  ASSERT_EQ(totals.size(), 1u);
  EXPECT_EQ(totals.begin()->second, want);

  ReconciledRecord again = ReconcileRecord(first.next, pods, context, bounds);
  EXPECT_EQ(again.next.usage, first.next.usage);
  EXPECT_EQ(again.next.charges, first.next.charges);
}

// A record with no room for a pod running without a charge: the rest is written, and why the
// pod was left uncharged is said.
TEST(ClusterLedgerReconcileTest, RecordLeavesUnchargedWhatDoesNotFit) {
  GpuQuotaRecord record{.ns = "team-a"};
  record.charges = {{"kept", {{"u1", kNow - seconds(5), Gpus(1)}}}};
  PodMap pods = {{"kept", PodInfo{.uid = "u1", .amounts = Gpus(1)}},
                 {"new", PodInfo{.uid = "u2", .amounts = Gpus(1)}}};
  const size_t fits = RecordBytes(record, "gpugate", {});
  ReconcileContext context{kNow, seconds(60), true};
  ReconciledRecord full =
      ReconcileRecord(record, pods, context, {.name = "gpugate", .maxRecordBytes = fits});
  EXPECT_EQ(Render(full.next.charges), "kept@u1");
  EXPECT_TRUE(full.leftUncharged.starts_with(
      "GPU pods running without a charge are left uncharged: gpugate cannot record another GPU pod "
      "in team-a"))
      << full.leftUncharged;
  ReconciledRecord roomy = ReconcileRecord(record, pods, context, {.name = "gpugate"});
  EXPECT_EQ(Render(roomy.next.charges), "kept@u1 new@u2+");
  EXPECT_EQ(roomy.leftUncharged, "");
}

}  // namespace
}  // namespace gpugate::cluster
