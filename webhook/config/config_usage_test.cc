// The usage section: time zone, history, record bound and GPU-hour budgets.
#include <gtest/gtest.h>

#include "config/config.h"
#include "config/testing.h"

namespace gpugate::config {
namespace {

using testing::ExpectErrors;

// usage comes before quota in the file, yet names quota's figure and flavor.
constexpr const char* kBudgets =
    "usage:\n"
    "  timeZone: Europe/Berlin\n"
    "  historyMonths: 6\n"
    "  maxRecordBytes: 65536\n"
    "  budgets:\n"
    "  - pattern: team-a\n"
    "    period: month\n"
    "    gpuHours: {nvidia.com/gpu: 2000, nvidia.com/gpu@a100: 500.5, gpu-equivalents: 1500}\n"
    "    warnAt: 90\n"
    "  - pattern: \"research-*\"\n"
    "    period: rolling:10m\n"
    "    gpuHours: {nvidia.com/gpu: 0.25}\n"
    "quota:\n"
    "  weights: {gpu-equivalents: {nvidia.com/gpu: 1}}\n"
    "  flavors:\n"
    "    a100: {nodeLabels: {nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB}}\n";

TEST(ConfigUsage, Budgets) {
  auto config = ParseConfig(kBudgets, "gpugate.yaml");
  ASSERT_TRUE(config) << config.error().message;
  const usage::UsageConfig& u = config->usage;
  EXPECT_EQ(u.timeZone, "Europe/Berlin");
  EXPECT_EQ(u.historyMonths, 6);
  EXPECT_EQ(u.maxRecordBytes, 65536u);
  ASSERT_EQ(u.budgets.size(), 2u);
  EXPECT_EQ(u.budgets[0].pattern, "team-a");
  EXPECT_EQ(usage::FormatPeriodSpec(u.budgets[0].period), "month");
  EXPECT_EQ(u.budgets[0].gpuHours, (quota::Amounts{{"gpu-equivalents", 1'500'000},
                                                   {"nvidia.com/gpu", 2'000'000},
                                                   {"nvidia.com/gpu@a100", 500'500}}));
  EXPECT_EQ(u.budgets[0].warnAtPercent, 90);
  EXPECT_EQ(u.budgets[1].pattern, "research-*");
  EXPECT_EQ(usage::FormatPeriodSpec(u.budgets[1].period), "rolling:10m");
  EXPECT_EQ(u.budgets[1].gpuHours, (quota::Amounts{{"nvidia.com/gpu", 250}}));
  EXPECT_EQ(u.budgets[1].warnAtPercent, 80);
}

TEST(ConfigUsage, Defaults) {
  auto config = ParseConfig("listen: \"0.0.0.0:8443\"\n", "gpugate.yaml");
  ASSERT_TRUE(config) << config.error().message;
  EXPECT_EQ(config->usage.timeZone, "UTC");
  EXPECT_EQ(config->usage.historyMonths, 13);
  EXPECT_EQ(config->usage.maxRecordBytes, 256u * 1024);
  EXPECT_TRUE(config->usage.budgets.empty());
}

TEST(ConfigUsage, Errors) {
  auto budget = [](const std::string& entry) { return "usage:\n  budgets:\n  - " + entry + "\n"; };
  ExpectErrors({
      {"usage:\n  timeZone: Mars/Olympus\n",
       "gpugate.yaml:2: usage.timeZone: time zone \"Mars/Olympus\": cannot read "
       "/usr/share/zoneinfo/Mars/Olympus: No such file or directory"},
      {"usage:\n  timeZone: ../etc/passwd\n",
       "gpugate.yaml:2: usage.timeZone: time zone \"../etc/passwd\": not a zone name such as "
       "\"Europe/Berlin\""},
      {"usage:\n  historyMonths: 0\n",
       "gpugate.yaml:2: usage.historyMonths: must be a number of months from 1 to 120, got \"0\""},
      {"usage:\n  maxRecordBytes: 100\n",
       "gpugate.yaml:2: usage.maxRecordBytes: must be a number of bytes from 4096 to 3145728, got "
       "\"100\""},
      {"usage:\n  budget: []\n",
       "gpugate.yaml:2: usage.budget: unknown key (known: timeZone, historyMonths, maxRecordBytes, "
       "budgets)"},
      {budget("{pattern: team-a, period: month}"),
       "gpugate.yaml:3: usage.budgets[0]: needs a pattern, a period and gpuHours"},
      {budget("{pattern: Team_A, period: month, gpuHours: {nvidia.com/gpu: 1}}"),
       "gpugate.yaml:3: usage.budgets[0].pattern: must be a namespace name, '*' matching any run "
       "of characters, such as \"team-*\", got \"Team_A\""},
      {budget("{pattern: team-a, period: day, gpuHours: {nvidia.com/gpu: 1}}"),
       "gpugate.yaml:3: usage.budgets[0].period: must be month, week or rolling:<duration> such "
       "as rolling:720h, got \"day\""},
      {budget("{pattern: team-a, period: \"rolling:10\", gpuHours: {nvidia.com/gpu: 1}}"),
       "gpugate.yaml:3: usage.budgets[0].period: rolling window: missing or unknown unit (ns, us, "
       "ms, s, m, h), got \"rolling:10\""},
      {budget("{pattern: team-a, period: \"rolling:8100h\", gpuHours: {nvidia.com/gpu: 1}}"),
       "gpugate.yaml:3: usage.budgets[0]: period rolling:8100h is longer than the history kept "
       "(historyMonths: 13 keeps 336 days for certain)"},
      {budget("{pattern: team-a, period: month, gpuHours: {}}"),
       "gpugate.yaml:3: usage.budgets[0].gpuHours: must limit at least one resource or figure"},
      {budget("{pattern: team-a, period: month, gpuHours: {example.com/fpga: 1}}"),
       "gpugate.yaml:3: usage.budgets[0].gpuHours.example.com/fpga: must be a resource gpugate "
       "manages (see resources) or a figure from quota.weights, got \"example.com/fpga\""},
      {budget("{pattern: team-a, period: month, gpuHours: {nvidia.com/gpu@h100: 1}}"),
       "gpugate.yaml:3: usage.budgets[0].gpuHours.nvidia.com/gpu@h100: names flavor \"h100\", "
       "which quota.flavors does not define, in \"nvidia.com/gpu@h100\""},
      {budget("{pattern: team-a, period: month, gpuHours: {nvidia.com/gpu: -1}}"),
       "gpugate.yaml:3: usage.budgets[0].gpuHours.nvidia.com/gpu: must be a number of GPU-hours "
       "with at most 3 decimals, got \"-1\""},
      {budget("{pattern: team-a, period: month, gpuHours: {nvidia.com/gpu: \"5\"}}"),
       "gpugate.yaml:3: usage.budgets[0].gpuHours.nvidia.com/gpu: must be a number of GPU-hours "
       "with at most 3 decimals, got \"5\" (a quoted string)"},
      {budget("{pattern: team-a, period: month, gpuHours: {nvidia.com/gpu: 1}, warnAt: 101}"),
       "gpugate.yaml:3: usage.budgets[0].warnAt: must be a percentage from 0 (no warning) to 100, "
       "got \"101\""},
      {"usage:\n  budgets:\n  - {pattern: team-a, period: week, gpuHours: {nvidia.com/gpu: 1}}\n"
       "  - {pattern: team-a, period: month, gpuHours: {nvidia.com/gpu: 1}}\n",
       "gpugate.yaml:4: usage.budgets[1]: pattern \"team-a\" is already listed at "
       "usage.budgets[0]"},
  });
}

}  // namespace
}  // namespace gpugate::config
