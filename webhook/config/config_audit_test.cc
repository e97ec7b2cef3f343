#include <gtest/gtest.h>

#include "config/config.h"
#include "config/testing.h"

namespace gpugate::config {
namespace {

TEST(ConfigAudit, DefaultsAndValues) {
  auto empty = ParseConfig("", "gpugate.yaml");
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->audit.customResources.empty());

  auto set = ParseConfig(
      "audit:\n  customResources:\n"
      "    - {group: batch.volcano.sh, version: v1alpha1, resource: jobs}\n"
      "    - group: kubeflow.org\n      version: v1\n      resource: pytorchjobs\n",
      "gpugate.yaml");
  ASSERT_TRUE(set) << set.error().message;
  EXPECT_EQ(set->audit.customResources,
            (std::vector<CustomResource>{{"batch.volcano.sh", "v1alpha1", "jobs"},
                                         {"kubeflow.org", "v1", "pytorchjobs"}}));
}

TEST(ConfigAudit, Errors) {
  testing::ExpectErrors({
      {"audit:\n  customResource: []\n",
       "gpugate.yaml:2: audit.customResource: unknown key (known: customResources)"},
      {"audit:\n  customResources: {group: a.b}\n",
       "gpugate.yaml:2: audit.customResources: must be a list, got a map"},
      {"audit:\n  customResources:\n    - {group: kubeflow.org, resource: tfjobs}\n",
       "gpugate.yaml:3: audit.customResources[0]: needs group, version and resource"},
      {"audit:\n  customResources:\n    - {group: apps, version: v1, resource: deployments}\n",
       "gpugate.yaml:3: audit.customResources[0].group: must be an API group with a dot such as "
       "\"batch.volcano.sh\", got \"apps\""},
      {"audit:\n  customResources:\n    - {group: ray.io, version: V1, resource: rayjobs}\n",
       "gpugate.yaml:3: audit.customResources[0].version: must be an API version such as "
       "\"v1alpha1\", got \"V1\""},
      {"audit:\n  customResources:\n    - {group: ray.io, version: v1, resource: RayJob}\n",
       "gpugate.yaml:3: audit.customResources[0].resource: must be a resource's plural name such "
       "as \"jobs\", got \"RayJob\""},
      {"audit:\n  customResources:\n    - {group: ray.io, version: v1, resource: rayjobs}\n"
       "    - {group: ray.io, version: v1alpha1, resource: rayjobs}\n",
       "gpugate.yaml:4: audit.customResources[1]: \"rayjobs.ray.io\" is already listed at "
       "audit.customResources[0]"},
  });
}

}  // namespace
}  // namespace gpugate::config
