#include "usage/spent.h"

#include <gtest/gtest.h>

#include "usage/accruals.h"
#include "usage/testing.h"

namespace gpugate::usage {
namespace {

using namespace testing;

std::string RenderAccruals(const std::vector<Accrual>& accruals) {
  std::string out;
  for (const Accrual& a : accruals) {
    if (!out.empty()) out += " ";
    out += a.key.ns + "/" + a.key.resource + "[" + a.key.model + "]=" + std::to_string(a.milli);
  }
  return out;
}

// A quota charge becomes one accrual per plain entry, with the model when there is one.
TEST(AccrualsTest, FromCharges) {
  struct Case {
    quota::Amounts charge;
    const char* want;
  } cases[] = {
      {{{"nvidia.com/gpu", 2000}}, "team-a/nvidia.com/gpu[]=2000"},
      {{{"nvidia.com/gpu", 2000},
        {"nvidia.com/gpu@a100", 2000},
        {"gpu-equivalents", 2000},
        {"gpu-equivalents@a100", 2000}},
       "team-a/gpu-equivalents[a100]=2000 team-a/nvidia.com/gpu[a100]=2000"},
      // Pinned to two models: which one it ran on is unknown here.
      {{{"nvidia.com/gpu", 1000}, {"nvidia.com/gpu@a100", 1000}, {"nvidia.com/gpu@h100", 1000}},
       "team-a/nvidia.com/gpu[]=1000"},
      {{{"tencent.com/vcuda-core", 50}, {"nvidia.com/gpu", 0}},
       "team-a/tencent.com/vcuda-core[]=50"},
      {{}, ""},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(RenderAccruals(Accruals("team-a", c.charge, {Utc(2026, 11, 1), Utc(2026, 11, 2)})),
              c.want);
  }
}

// Spent = finished pods in the book + running pods up to now, each counted once, in the period.
TEST(SpentTest, BookPlusRunningPods) {
  TimeZone berlin = Zone("Europe/Berlin");
  UsageBook book(berlin, {});
  sys_seconds now = At(berlin, 2026, 11, 27, 12);
  quota::Amounts a100 = {{"nvidia.com/gpu", 2000}, {"nvidia.com/gpu@a100", 2000}};
  quota::Amounts plain = {{"nvidia.com/gpu", 1000}};
  // Finished: from Oct 31 22:00 to Nov 1 02:00, then a plain pod on Nov 10.
  auto done = Accruals("team-a", a100, {At(berlin, 2026, 10, 31, 22), At(berlin, 2026, 11, 1, 2)});
  auto done2 =
      Accruals("team-a", plain, {At(berlin, 2026, 11, 10, 8), At(berlin, 2026, 11, 10, 10)});
  ASSERT_TRUE(book.Accrue(done).has_value());
  ASSERT_TRUE(book.Accrue(done2).has_value());
  // Running since Nov 27 09:00, and one in another namespace.
  auto running = Accruals("team-a", a100, {At(berlin, 2026, 11, 27, 9), now});
  auto other = Accruals("team-b", plain, {At(berlin, 2026, 11, 27, 0), now});
  running.insert(running.end(), other.begin(), other.end());
  Span november = {At(berlin, 2026, 11, 1), At(berlin, 2026, 12, 1)};
  auto spent = Spent(book, running, november);
  const int64_t h = kMilliGpuSecondsPerHour;
  EXPECT_EQ(SpentOn(spent, "team-a", "nvidia.com/gpu"), 2 * 2 * h + 2 * h + 2 * 3 * h);
  EXPECT_EQ(SpentOn(spent, "team-a", "nvidia.com/gpu@a100"), 2 * 2 * h + 2 * 3 * h);
  EXPECT_EQ(SpentOn(spent, "team-a", "nvidia.com/gpu@h100"), 0);
  EXPECT_EQ(SpentOn(spent, "team-b", "nvidia.com/gpu"), 12 * h);
  EXPECT_EQ(SpentOn(spent, "team-c", "nvidia.com/gpu"), 0);

  // Per day, a running pod lands on the days it ran so far.
  auto daily = DailySpent(book, running, {At(berlin, 2026, 11, 26), At(berlin, 2026, 11, 28)});
  EXPECT_EQ((daily[{local_days{2026y / 11 / 27}, Key("team-a", "nvidia.com/gpu", "a100")}]),
            2 * 3 * h);
  EXPECT_EQ((daily[{local_days{2026y / 11 / 27}, Key("team-b")}]), 12 * h);
  EXPECT_EQ(daily.size(), 2u);
}

}  // namespace
}  // namespace gpugate::usage
