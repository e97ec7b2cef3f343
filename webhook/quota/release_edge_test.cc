#include "quota/release_edge.h"

#include <gtest/gtest.h>

namespace gpugate::quota {
namespace {

WallClock::time_point At(std::string_view rfc3339) { return *ParseRfc3339(rfc3339); }

// "removed now", or "graceful: deletionTimestamp+grace, counts until T".
std::string Render(const DeletionState& d) {
  if (d.kind == DeletionState::Kind::kRemovedNow) return "removed now";
  return "graceful: " + FormatRfc3339(d.deletionTimestamp) + "+" + std::to_string(d.grace.count()) +
         "s, counts until " + FormatRfc3339(d.ReleaseAt());
}

constexpr std::optional<int64_t> kUnset;

struct Case {
  const char* name;
  PodDeletion pod;
  const char* want;
};

// The request arrives at 20:00:00.
const Case kCases[] = {
    // A first DELETE (Kubernetes' CheckGracefulDelete, then BeforeDelete).
    {"running pod, spec's grace period",
     {.scheduled = true, .terminationGracePeriodSeconds = 30},
     "graceful: 2026-11-27T20:00:30.000Z+30s, counts until 2026-11-27T20:01:00.000Z"},
    {"the DELETE's grace period wins over the spec's",
     {.scheduled = true, .terminationGracePeriodSeconds = 30, .gracePeriodSeconds = 600},
     "graceful: 2026-11-27T20:10:00.000Z+600s, counts until 2026-11-27T20:20:00.000Z"},
    {"no grace period anywhere: the API server's default of 30 s",
     {.scheduled = true},
     "graceful: 2026-11-27T20:00:30.000Z+30s, counts until 2026-11-27T20:01:00.000Z"},
    {"a forced delete (--grace-period=0 --force)",
     {.scheduled = true, .terminationGracePeriodSeconds = 30, .gracePeriodSeconds = 0},
     "removed now"},
    {"never scheduled: removed at once whatever the grace period",
     {.scheduled = false, .terminationGracePeriodSeconds = 30, .gracePeriodSeconds = 600},
     "removed now"},
    {"finished (Succeeded or Failed): removed at once",
     {.scheduled = true, .finished = true, .terminationGracePeriodSeconds = 30},
     "removed now"},
    {"a negative grace period is 1 s",
     {.scheduled = true, .gracePeriodSeconds = -5},
     "graceful: 2026-11-27T20:00:01.000Z+1s, counts until 2026-11-27T20:00:02.000Z"},
    {"a grace period past 3,660 days (ten years and a week) is read as 3,660 days",
     {.scheduled = true, .gracePeriodSeconds = INT64_MAX},
     "graceful: 2036-12-04T20:00:00.000Z+316224000s, counts until 2046-12-12T20:00:00.000Z"},
    // A DELETE of a pod already being deleted (BeforeDelete).
    {"the kubelet's final DELETE (grace 0)",
     {.scheduled = true,
      .deleting = true,
      .deletionTimestamp = At("2026-11-27T20:00:20Z"),
      .deletionGracePeriodSeconds = 30,
      .gracePeriodSeconds = 0},
     "removed now"},
    {"a repeated DELETE without a grace period changes nothing",
     {.scheduled = true,
      .deleting = true,
      .deletionTimestamp = At("2026-11-27T20:00:20Z"),
      .deletionGracePeriodSeconds = 30},
     "graceful: 2026-11-27T20:00:20.000Z+30s, counts until 2026-11-27T20:00:50.000Z"},
    {"a longer grace period changes nothing",
     {.scheduled = true,
      .deleting = true,
      .deletionTimestamp = At("2026-11-27T20:00:20Z"),
      .deletionGracePeriodSeconds = 30,
      .gracePeriodSeconds = 300},
     "graceful: 2026-11-27T20:00:20.000Z+30s, counts until 2026-11-27T20:00:50.000Z"},
    {"a shorter grace period moves the deletion earlier",
     {.scheduled = true,
      .deleting = true,
      .deletionTimestamp = At("2026-11-27T20:00:20Z"),
      .deletionGracePeriodSeconds = 30,
      .gracePeriodSeconds = 25},
     "graceful: 2026-11-27T20:00:15.000Z+25s, counts until 2026-11-27T20:00:40.000Z"},
    {"shortened into the past: now, with a grace of 1 s",
     {.scheduled = true,
      .deleting = true,
      .deletionTimestamp = At("2026-11-27T20:00:20Z"),
      .deletionGracePeriodSeconds = 30,
      .gracePeriodSeconds = 5},
     "graceful: 2026-11-27T20:00:00.000Z+1s, counts until 2026-11-27T20:00:01.000Z"},
    {"being deleted without a grace period recorded: removed now",
     {.scheduled = true, .deleting = true, .deletionTimestamp = At("2026-11-27T20:00:20Z")},
     "removed now"},
    {"stuck terminating: a repeated DELETE keeps its past release time",
     {.scheduled = true,
      .deleting = true,
      .deletionTimestamp = At("2026-11-27T19:50:00Z"),
      .deletionGracePeriodSeconds = 30},
     "graceful: 2026-11-27T19:50:00.000Z+30s, counts until 2026-11-27T19:50:30.000Z"},
    {"being deleted, the timestamp unreadable: read as a deletion starting now",
     {.scheduled = true, .deleting = true, .deletionGracePeriodSeconds = 30},
     "graceful: 2026-11-27T20:00:00.000Z+30s, counts until 2026-11-27T20:00:30.000Z"},
};

TEST(ReleaseEdge, DeletionAfterADeleteIsTheApiServers) {
  for (const Case& c : kCases) {
    EXPECT_EQ(Render(DeletionAfter(c.pod, At("2026-11-27T20:00:00Z"))), c.want) << c.name;
  }
}

TEST(ReleaseEdge, ReleaseTimeIsDeletionTimestampPlusGraceAsResourceQuotaCountsIt) {
  EXPECT_EQ(ReleaseTime(At("2026-11-27T20:00:30Z"), 30), At("2026-11-27T20:01:00Z"));
  EXPECT_EQ(ReleaseTime(At("2026-11-27T20:00:30Z"), 0), At("2026-11-27T20:00:30Z"));
  EXPECT_EQ(ReleaseTime(At("2026-11-27T20:00:30Z"), -4), At("2026-11-27T20:00:30Z"));
  EXPECT_EQ(ReleaseTime(At("2026-11-27T20:00:30Z"), kUnset), std::nullopt);
  EXPECT_EQ(ReleaseTime(std::nullopt, 30), std::nullopt);
}

}  // namespace
}  // namespace gpugate::quota
