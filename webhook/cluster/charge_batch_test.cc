// One batch of changes against a namespace's record, as the cluster ledger applies it: each
// checked in order against what the ones before it left.
#include "cluster/charge_batch.h"

#include <gtest/gtest.h>

#include "quota/amounts.h"

namespace gpugate::cluster {
namespace {

using quota::kMilli;

const WallClock::time_point kNow = WallClock::from_time_t(1714564800);  // 2024-05-01T12:00:00Z

// "c:name:gpus" charges, "d:name:gpus" a dry run, "r:name" releases; uid "u-name".
LedgerOp Op(const std::string& spec) {
  LedgerOp op;
  std::string name = spec.substr(2, spec.find(':', 2) - 2);
  op.pod = {"team-a", name, "u-" + name};
  if (spec[0] == 'r') {
    op.kind = LedgerOp::Kind::kRelease;
    return op;
  }
  op.amounts = {{"nvidia.com/gpu", std::stoll(spec.substr(spec.rfind(':') + 1)) * kMilli}};
  op.dryRun = spec[0] == 'd';
  return op;
}

GpuQuotaRecord RecordHolding(const std::vector<std::pair<std::string, int>>& charges) {
  GpuQuotaRecord record{.ns = "team-a"};
  record.object = {
      {"metadata", {{"name", "gpugate"}, {"namespace", "team-a"}, {"resourceVersion", "7"}}}};
  for (const auto& [name, gpus] : charges) {
    record.charges[name].push_back({"u-" + name, kNow, {{"nvidia.com/gpu", gpus * kMilli}}});
  }
  return record;
}

// Each op's answer: "charged", "already", "released", "not held", or the message.
std::string Render(const BatchEvaluation& batch) {
  std::string out;
  for (const LedgerOpResult& r : batch.results) {
    if (!out.empty()) out += " | ";
    switch (r.reserve.outcome) {
      case quota::ReserveOutcome::kCharged:
        out += "charged";
        break;
      case quota::ReserveOutcome::kAlreadyCharged:
        out += "already";
        break;
      default:
        out += r.reserve.message;
    }
  }
  return out;
}

struct Case {
  std::string name;
  std::vector<std::pair<std::string, int>> held;  // the record before the batch
  std::vector<std::string> ops;
  int limit;             // nvidia.com/gpu
  std::string want;      // Render(), releases rendered "charged" (their reserve is unset)
  std::string wantUsed;  // the record after the batch
  bool wantChanged;
  bool wantFreshRead;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

class ChargeBatchTest : public ::testing::TestWithParam<Case> {};

TEST_P(ChargeBatchTest, AppliesEachChangeInOrder) {
  const Case& c = GetParam();
  std::vector<LedgerOp> ops;
  for (const std::string& spec : c.ops) ops.push_back(Op(spec));
  std::vector<const LedgerOp*> pointers;
  for (const LedgerOp& op : ops) pointers.push_back(&op);
  GpuQuotaRecord record = RecordHolding(c.held);
  BatchContext context{.hard = {{"nvidia.com/gpu", c.limit * kMilli}}, .now = kNow};
  BatchEvaluation batch = EvaluateBatch(record, pointers, context);
  EXPECT_EQ(Render(batch), c.want);
  EXPECT_EQ(quota::FormatAmounts(batch.next.Used()), c.wantUsed);
  EXPECT_EQ(batch.changed, c.wantChanged);
  EXPECT_EQ(batch.needsFreshRead, c.wantFreshRead);
}

const std::string kFull3 =
    "exceeded quota: team-a, requested: nvidia.com/gpu=2, used: nvidia.com/gpu=2, limited: "
    "nvidia.com/gpu=3";

INSTANTIATE_TEST_SUITE_P(
    Batches, ChargeBatchTest,
    ::testing::Values(
        Case{.name = "AllFit",
             .held = {},
             .ops = {"c:a:1", "c:b:1", "c:c:1"},
             .limit = 3,
             .want = "charged | charged | charged",
             .wantUsed = "nvidia.com/gpu=3",
             .wantChanged = true,
             .wantFreshRead = false},
        // The second no longer fits after the first; the third, smaller, still does.
        Case{.name = "OneThatNoLongerFitsIsRefusedTheOthersCharged",
             .held = {},
             .ops = {"c:a:2", "c:b:2", "c:c:1"},
             .limit = 3,
             .want = "charged | exceeded quota: team-a, requested: nvidia.com/gpu=2, used: "
                     "nvidia.com/gpu=2, limited: nvidia.com/gpu=3 | charged",
             .wantUsed = "nvidia.com/gpu=3",
             .wantChanged = true,
             // The refusal holds because the guarded write proves the version.
             .wantFreshRead = true},
        Case{.name = "AReleaseEarlierInTheBatchMakesRoom",
             .held = {{"old", 3}},
             .ops = {"r:old", "c:a:3"},
             .limit = 3,
             .want = "charged | charged",
             .wantUsed = "nvidia.com/gpu=3",
             .wantChanged = true,
             .wantFreshRead = false},
        Case{.name = "AlreadyChargedNeedsAFreshRead",
             .held = {{"a", 1}},
             .ops = {"c:a:1"},
             .limit = 3,
             .want = "already",
             .wantUsed = "nvidia.com/gpu=1",
             .wantChanged = false,
             .wantFreshRead = true},
        Case{.name = "ADryRunIsCheckedNeverAdded",
             .held = {},
             .ops = {"d:a:2", "c:b:2"},
             .limit = 3,
             .want = "charged | charged",
             .wantUsed = "nvidia.com/gpu=2",
             .wantChanged = true,
             .wantFreshRead = true},
        Case{.name = "ARefusalAloneNeedsAFreshRead",
             .held = {{"a", 2}},
             .ops = {"c:b:2"},
             .limit = 3,
             .want = kFull3,
             .wantUsed = "nvidia.com/gpu=2",
             .wantChanged = false,
             .wantFreshRead = true},
        Case{.name = "ReleasingWhatIsNotHeldChangesNothing",
             .held = {{"a", 1}},
             .ops = {"r:b"},
             .limit = 3,
             .want = "charged",
             .wantUsed = "nvidia.com/gpu=1",
             .wantChanged = false,
             .wantFreshRead = false}),
    [](const auto& info) { return info.param.name; });

// The record's size bound: a charge that would take it past maxRecordBytes is refused, saying
// so, whatever the limits; a release frees room for the next.
TEST(ChargeBatchSize, AChargePastTheRecordBoundIsRefusedAndAReleaseMakesRoom) {
  GpuQuotaRecord record = RecordHolding({{"a", 1}, {"b", 1}});
  const quota::Amounts noLimit;
  const size_t bytes = RecordBytes(record, "gpugate", noLimit);
  LedgerOp c = Op("c:c:1"), d = Op("c:d:1"), releaseA = Op("r:a");
  // Room for exactly one more charge like a's.
  GpuQuotaRecord withC = record;
  withC.charges["c"].push_back({"u-c", kNow, c.amounts});
  const size_t oneMore = RecordBytes(withC, "gpugate", noLimit);
  BatchContext context{
      .hard = noLimit, .recordBytes = bytes, .maxRecordBytes = oneMore, .now = kNow};

  std::vector<const LedgerOp*> ops = {&c, &d};
  BatchEvaluation batch = EvaluateBatch(record, ops, context);
  EXPECT_EQ(Render(batch),
            "charged | gpugate cannot record another GPU pod in team-a: its GPUQuota holds 3 "
            "charges in " +
                std::to_string(oneMore) +
                " bytes, and one more would pass "
                "cluster.maxGpuQuotaBytes (" +
                std::to_string(oneMore) +
                "; a Kubernetes object must stay under etcd's 1.5 MiB request limit). Room "
                "returns as the namespace's GPU pods finish or are deleted");
  EXPECT_EQ(RecordBytes(batch.next, "gpugate", noLimit), oneMore);  // the estimate is exact here

  ops = {&c, &releaseA, &d};
  batch = EvaluateBatch(record, ops, context);
  EXPECT_EQ(Render(batch), "charged | charged | charged");
  EXPECT_LE(RecordBytes(batch.next, "gpugate", noLimit), oneMore);
}

// The bound holds exactly, though a charge's entry is not all it adds: here the tenth GPU also
// lengthens status.used and the summaries ("9" to "10"), which its entry alone would not show.
TEST(ChargeBatchSize, TheBoundCountsWhatTheDerivedFieldsAddToo) {
  std::vector<std::pair<std::string, int>> nine;
  for (int i = 0; i < 9; ++i) nine.emplace_back("p" + std::to_string(i), 1);
  GpuQuotaRecord record = RecordHolding(nine);
  GpuQuotaRecord ten = record;
  LedgerOp tenth = Op("c:p9:1");
  ten.charges["p9"].push_back({"u-p9", kNow, tenth.amounts});
  const quota::Amounts noLimit;
  BatchContext context{.hard = noLimit,
                       .recordBytes = RecordBytes(record, "gpugate", noLimit),
                       .maxRecordBytes = RecordBytes(ten, "gpugate", noLimit) - 1,
                       .now = kNow};
  std::vector<const LedgerOp*> ops = {&tenth};
  BatchEvaluation batch = EvaluateBatch(record, ops, context);
  EXPECT_EQ(batch.results[0].reserve.outcome, quota::ReserveOutcome::kRecordFull);
  EXPECT_FALSE(batch.changed);

  context.maxRecordBytes += 1;  // exactly the ten charges' size: fits
  batch = EvaluateBatch(record, ops, context);
  EXPECT_EQ(batch.results[0].reserve.outcome, quota::ReserveOutcome::kCharged);
  EXPECT_EQ(RecordBytes(batch.next, "gpugate", noLimit), context.maxRecordBytes);
}

}  // namespace
}  // namespace gpugate::cluster

namespace gpugate::cluster {
namespace {

using nlohmann::json;

// A release (the final DELETE) accrues the pod's usage in the write that drops its charge; the
// same release redone from the record that write left (a 409 and a retry, where another replica
// released it first) drops nothing and accrues nothing.
TEST(ChargeBatchUsage, AReleaseAccruesItsPodsUsageOnce) {
  GpuQuotaRecord record = RecordHolding({{"a", 2}, {"b", 1}});
  record.charges["a"][0].started = kNow - std::chrono::hours(3);  // b never ran
  PodMap pods = {
      {"a",
       PodInfo{
           .uid = "u-a", .terminal = true, .amounts = {}, .ended = kNow - std::chrono::hours(1)}}};
  BookSettings book;
  BatchContext context{.name = "gpugate", .now = kNow, .pods = &pods, .book = &book};
  LedgerOp releaseA = Op("r:a"), releaseB = Op("r:b");
  const LedgerOp* ops[] = {&releaseA, &releaseB};
  BatchEvaluation first = EvaluateBatch(record, ops, context);
  EXPECT_TRUE(first.problems.empty());
  EXPECT_TRUE(first.next.charges.empty());
  // 2 GPUs for the 2 hours from its start to its end, in the one key.
  EXPECT_EQ(first.next.usage["keys"].size(), 1u);
  EXPECT_EQ(first.next.usage["keys"][0]["days"], json::array({2 * kMilli * 7200}));

  BatchEvaluation redo = EvaluateBatch(first.next, ops, context);
  EXPECT_FALSE(redo.changed);
  EXPECT_EQ(redo.next.usage, first.next.usage);
}

}  // namespace
}  // namespace gpugate::cluster

namespace gpugate::cluster {
namespace {

// The whole record's bound holds for the book too: a release's usage that would take the record
// past maxRecordBytes is left unrecorded (and reported), and the charge is released all the same;
// one byte more of room and it is recorded.
TEST(ChargeBatchUsage, TheRecordBoundHoldsTheBookAndTheReleaseStillHappens) {
  GpuQuotaRecord record = RecordHolding({{"a", 1}});
  record.charges["a"][0].started = kNow - std::chrono::hours(1);
  BookSettings book;
  LedgerOp release = Op("r:a");
  const LedgerOp* ops[] = {&release};
  // What the record takes with the usage recorded, measured with no bound.
  BatchContext unbounded{.name = "gpugate", .now = kNow, .book = &book};
  const GpuQuotaRecord recorded = EvaluateBatch(record, ops, unbounded).next;
  ASSERT_FALSE(recorded.usage.is_null());
  const size_t fits = RecordBytes(recorded, "gpugate", {});
  for (const size_t bound : {fits - 1, fits}) {
    BatchContext context = unbounded;
    context.recordBytes = RecordBytes(record, "gpugate", {});
    context.maxRecordBytes = bound;
    BatchEvaluation batch = EvaluateBatch(record, ops, context);
    EXPECT_TRUE(batch.results[0].released) << bound;
    EXPECT_TRUE(batch.next.charges.empty()) << bound;
    EXPECT_LE(RecordBytes(batch.next, "gpugate", {}), bound);
    EXPECT_EQ(batch.next.usage.is_null(), bound < fits) << bound;
    EXPECT_EQ(batch.problems.size(), bound < fits ? 1u : 0u) << bound;
  }
}

}  // namespace
}  // namespace gpugate::cluster
