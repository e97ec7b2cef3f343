#include "config/k8s_names.h"

#include <gtest/gtest.h>

#include <string>

namespace gpugate::config {
namespace {

TEST(K8sNames, Table) {
  struct Case {
    bool (*check)(std::string_view);
    const char* name;
    std::string text;
    bool want;
  } cases[] = {
      {IsDnsLabel, "label", "kube-system", true},
      {IsDnsLabel, "label", "a", true},
      {IsDnsLabel, "label", std::string(63, 'a'), true},
      {IsDnsLabel, "label", std::string(64, 'a'), false},
      {IsDnsLabel, "label", "-a", false},
      {IsDnsLabel, "label", "a-", false},
      {IsDnsLabel, "label", "A", false},
      {IsDnsLabel, "label", "a.b", false},
      {IsDnsLabel, "label", "", false},
      {IsDnsSubdomain, "subdomain", "volcano", true},
      {IsDnsSubdomain, "subdomain", "my.scheduler-1", true},
      {IsDnsSubdomain, "subdomain", "a..b", false},
      {IsDnsSubdomain, "subdomain", ".a", false},
      {IsDnsSubdomain, "subdomain", "a.", false},
      {IsDnsSubdomain, "subdomain", std::string(254, 'a'), false},
      {IsQualifiedName, "qualified", "gpu", true},
      {IsQualifiedName, "qualified", "nvidia.com/gpu", true},
      {IsQualifiedName, "qualified", "Node_Role.x", true},
      {IsQualifiedName, "qualified", "/gpu", false},
      {IsQualifiedName, "qualified", "a/b/c", false},
      {IsQualifiedName, "qualified", "a/_x", false},
      {IsLabelValue, "value", "", true},
      {IsLabelValue, "value", "ml-team_1.x", true},
      {IsLabelValue, "value", "a b", false},
      {IsExtendedResourceName, "resource", "nvidia.com/gpu", true},
      {IsExtendedResourceName, "resource", "nvidia.com/mig-1g.5gb", true},
      {IsExtendedResourceName, "resource", "gpu", false},
      {IsExtendedResourceName, "resource", "kubernetes.io/gpu", false},
      {IsExtendedResourceName, "resource", "example.kubernetes.io/gpu", false},
      {IsExtendedResourceName, "resource", "requests.nvidia.com/gpu", false},
      {IsExtendedResourceName, "resource", "Nvidia.com/gpu", false},
      {IsExtendedResourceName, "resource", "nvidia.com/gpu*", false},
      {IsExtendedResourcePattern, "pattern", "nvidia.com/mig-*", true},
      {IsExtendedResourcePattern, "pattern", "*.example.com/*", true},
      {IsExtendedResourcePattern, "pattern", "nvidia.com/gpu", false},
      {IsExtendedResourcePattern, "pattern", "*", false},
      {IsExtendedResourcePattern, "pattern", "nvidia.com/-*", false},
  };
  for (const auto& c : cases) EXPECT_EQ(c.check(c.text), c.want) << c.name << " " << c.text;
}

}  // namespace
}  // namespace gpugate::config
