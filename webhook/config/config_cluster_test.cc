#include <gtest/gtest.h>

#include "config/config.h"

namespace gpugate::config {
namespace {

TEST(ConfigCluster, DefaultsAndValues) {
  auto empty = ParseConfig("", "gpugate.yaml");
  ASSERT_TRUE(empty);
  EXPECT_FALSE(empty->cluster.enabled);
  EXPECT_EQ(empty->cluster.reservationGrace, std::chrono::seconds(60));
  EXPECT_EQ(empty->cluster.reconcileInterval, std::chrono::seconds(5));
  EXPECT_EQ(empty->cluster.idleConnectionTimeout, std::chrono::seconds(60));
  EXPECT_EQ(empty->cluster.maxGpuQuotaBytes, 1 << 20);

  auto set = ParseConfig(
      "cluster:\n  enabled: true\n  kubeconfig: /etc/kube/config\n  context: prod\n"
      "  reservationGraceSeconds: 30\n  reconcileIntervalSeconds: 2\n"
      "  idleConnectionTimeout: 30s\n  maxGpuQuotaBytes: 2097152\n",
      "gpugate.yaml");
  ASSERT_TRUE(set) << set.error().message;
  EXPECT_TRUE(set->cluster.enabled);
  EXPECT_EQ(set->cluster.kubeconfig, "/etc/kube/config");
  EXPECT_EQ(set->cluster.context, "prod");
  EXPECT_EQ(set->cluster.reservationGrace, std::chrono::seconds(30));
  EXPECT_EQ(set->cluster.reconcileInterval, std::chrono::seconds(2));
  EXPECT_EQ(set->cluster.idleConnectionTimeout, std::chrono::seconds(30));
  EXPECT_EQ(set->cluster.maxGpuQuotaBytes, 2 << 20);
}

TEST(ConfigCluster, Errors) {
  struct Case {
    const char* yaml;
    const char* error;
  } cases[] = {
      {"cluster:\n  enabled: yes\n",
       "gpugate.yaml:2: cluster.enabled: must be true or false, got \"yes\""},
      {"cluster:\n  kubeConfig: x\n",
       "gpugate.yaml:2: cluster.kubeConfig: unknown key (known: enabled, kubeconfig, context, "
       "reservationGrace, reservationGraceSeconds, reconcileInterval, "
       "reconcileIntervalSeconds, idleConnectionTimeout, maxGpuQuotaBytes)"},
      {"cluster:\n  maxGpuQuotaBytes: 4096\n",
       "gpugate.yaml:2: cluster.maxGpuQuotaBytes: must be from 65536 to 3145728 bytes, got "
       "\"4096\""},
      {"cluster:\n  maxGpuQuotaBytes: 1Mi\n",
       "gpugate.yaml:2: cluster.maxGpuQuotaBytes: must be a positive integer, got \"1Mi\""},
      {"cluster:\n  reservationGraceSeconds: 0\n",
       "gpugate.yaml:2: cluster.reservationGraceSeconds: must be a positive integer, got \"0\""},
      {"cluster:\n  reconcileIntervalSeconds: 7200\n",
       "gpugate.yaml:2: cluster.reconcileIntervalSeconds: must be a number of seconds from 1 to "
       "3600, got \"7200\""},
      {"quota:\n  stateFile: /var/lib/gpugate/ledger\ncluster:\n  enabled: true\n",
       "gpugate.yaml:2: quota: stateFile is the local ledger's file and is not used when "
       "cluster.enabled is true; remove it"},
  };
  for (const auto& c : cases) {
    auto got = ParseConfig(c.yaml, "gpugate.yaml");
    ASSERT_FALSE(got) << c.yaml;
    EXPECT_EQ(got.error().message, c.error) << c.yaml;
  }
}

}  // namespace
}  // namespace gpugate::config
