// ClusterUsage over records a test sets by hand: the usage counter that never goes down (books
// pruned, pods finishing), and a book in another time zone, reported once per version and
// counted as none.
#include <gtest/gtest.h>

#include "cluster/cluster_usage.h"
#include "usage/book_codec.h"
#include "usage/testing.h"

namespace gpugate::cluster {
namespace {

using nlohmann::json;
using quota::kMilli;
using usage::testing::Utc;

constexpr int64_t kGpuHour = usage::kMilliGpuSecondsPerHour;

class Records : public RecordSource {
 public:
  std::optional<RecordUsage> RecordOf(std::string_view ns,
                                      std::string_view /*bookKnownAt*/) const override {
    for (const GpuQuotaRecord& r : records) {
      if (r.ns == ns) return UsageOfRecord(r);
    }
    return std::nullopt;
  }
  std::vector<RecordUsage> AllRecords() const override {
    std::vector<RecordUsage> out;
    for (const GpuQuotaRecord& r : records) out.push_back(UsageOfRecord(r));
    return out;
  }
  bool RecordsSynced() const override { return synced; }

  std::vector<GpuQuotaRecord> records;
  bool synced = true;
};

// team-a's record at resourceVersion `rv`: its book holds `finished` GPU-hours on each of `days`,
// and `running` GPUs run since 2026-11-18 00:00.
GpuQuotaRecord Record(const std::string& rv, std::vector<unsigned> days, int finished, int running,
                      const TimeZone& zone = TimeZone::Utc()) {
  GpuQuotaRecord record{.ns = "team-a"};
  record.object = {{"metadata", {{"namespace", "team-a"}, {"resourceVersion", rv}}}};
  usage::UsageBook book(zone, {});
  for (unsigned day : days) {
    usage::Accrual a{.key = {"team-a", "nvidia.com/gpu", ""},
                     .milli = kMilli,
                     .held = {Utc(2026, 11, day), Utc(2026, 11, day, finished)}};
    EXPECT_TRUE(book.Accrue({&a, 1}));
  }
  if (!days.empty()) record.usage = json::parse(usage::EncodeBook(book));
  if (running > 0) {
    record.charges["job"].push_back(
        {"u1", Utc(2026, 11, 18), {{"nvidia.com/gpu", running * kMilli}}, Utc(2026, 11, 18)});
  }
  return record;
}

int64_t Counter(const ClusterUsage& usage, int hour) {
  auto accrued = usage.Accrued(Utc(2026, 11, 18, hour));
  auto it = accrued.find({"team-a", "nvidia.com/gpu"});
  return it == accrued.end() ? -1 : it->second;
}

TEST(ClusterUsageCounter, CountsWhatAccruesAfterItsFirstReadingAndNeverGoesDown) {
  Records source;
  auto usage = ClusterUsage::Create(source, usage::UsageConfig{});
  ASSERT_TRUE(usage);
  const ClusterUsage& u = **usage;
  source.synced = false;
  source.records = {Record("1", {10, 11}, 5, 2)};
  EXPECT_EQ(Counter(u, 1), -1) << "nothing before the records are listed";
  source.synced = true;
  // The first reading: 0, whatever the history holds.
  EXPECT_EQ(Counter(u, 1), 0);
  // The running pod's 2 GPUs for 2 more hours.
  EXPECT_EQ(Counter(u, 3), 4 * kGpuHour);
  // It finished at 04:00 (8 GPU-hours in the book today, 6 of them counted already while it ran)
  // and day 10 was pruned: +2 h since, and the pruned day takes nothing away.
  GpuQuotaRecord finished = Record("2", {11}, 5, 0);
  {
    usage::UsageBook book = *usage::DecodeBook(finished.usage.dump(), TimeZone::Utc(), {});
    usage::Accrual a{.key = {"team-a", "nvidia.com/gpu", ""},
                     .milli = 2 * kMilli,
                     .held = {Utc(2026, 11, 18), Utc(2026, 11, 18, 4)}};
    ASSERT_TRUE(book.Accrue({&a, 1}));
    finished.usage = json::parse(usage::EncodeBook(book));
  }
  source.records = {finished};
  EXPECT_EQ(Counter(u, 5), 6 * kGpuHour);
  // Nothing runs, nothing finishes: it stays.
  EXPECT_EQ(Counter(u, 9), 6 * kGpuHour);
}

TEST(ClusterUsageCounter, ABookInAnotherZoneIsReportedOncePerVersionAndCountsAsNone) {
  Records source;
  std::vector<std::string> errors;
  usage::UsageConfig config;
  config.budgets.push_back({.pattern = "team-a",
                            .period = {usage::PeriodKind::kMonth},
                            .gpuHours = {{"nvidia.com/gpu", 1 * kMilli}}});
  auto usage =
      ClusterUsage::Create(source, config, [&](const std::string& m) { errors.push_back(m); });
  ASSERT_TRUE(usage);
  source.records = {Record("7", {10}, 5, 0, usage::testing::Zone("Europe/Berlin"))};
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ((*usage)->Check("team-a", {{"nvidia.com/gpu", kMilli}}, Utc(2026, 11, 18)).state,
              usage::BudgetState::kWithin);
  }
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0],
            "the usage of team-a is not counted: its GPUQuota's status.usage cannot be read: "
            "usage record: its days are in time zone \"Europe/Berlin\", not the configured "
            "\"UTC\"");
  // The same book in the configured zone: spent.
  source.records = {Record("8", {10}, 5, 0)};
  EXPECT_EQ((*usage)->Check("team-a", {{"nvidia.com/gpu", kMilli}}, Utc(2026, 11, 18)).state,
            usage::BudgetState::kSpent);
}

}  // namespace
}  // namespace gpugate::cluster
