#include <gtest/gtest.h>

#include "policy/checks.h"
#include "policy/testing.h"

namespace gpugate::policy {
namespace {

using testing::PodBuilder;

Settings WithoutVcuda() {
  Settings s;
  std::erase_if(s.resources, [](const ManagedResource& r) { return r.name == kVcudaCore; });
  return s;
}

constexpr char kCore[] = "tencent.com/vcuda-core";

TEST(VcudaCoreShares, Table) {
  const testing::RuleCase cases[] = {
      {"shares of one card and whole cards",
       PodBuilder()
           .Container("a")
           .Gpu(kCore, "1")
           .Container("b")
           .Gpu(kCore, "99")
           .Container("c")
           .Gpu(kCore, "100")
           .Container("d")
           .Gpu(kCore, "300")
           .Container("e")
           .Gpu(kCore, "0")
           .Container("f")
           .Gpu(kCore, "200000m")
           .Build(),
       {}},
      {"a card and a half, limit and request",
       PodBuilder().Container("a").Gpu(kCore, "150").Build(),
       {R"(spec.containers[0] "a": tencent.com/vcuda-core limit "150" must be below 100 (a share of one card) or a multiple of 100 (whole cards))",
        R"(spec.containers[0] "a": tencent.com/vcuda-core request "150" must be below 100 (a share of one card) or a multiple of 100 (whole cards))"}},
      {"init and ephemeral containers, template path",
       PodBuilder("spec.template.spec")
           .Ephemeral("debug")
           .Limit(kCore, "101")
           .Container("main")
           .Limit(kCore, "50")
           .Init("setup")
           .Request(kCore, "1.01e2")
           .Build(),
       {R"(spec.template.spec.initContainers[0] "setup": tencent.com/vcuda-core request "1.01e2" must be below 100 (a share of one card) or a multiple of 100 (whole cards))",
        R"(spec.template.spec.ephemeralContainers[0] "debug": tencent.com/vcuda-core limit "101" must be below 100 (a share of one card) or a multiple of 100 (whole cards))"}},
      {"values whole-units reports are skipped",
       PodBuilder().Container("a").Limit(kCore, "150.5").Request(kCore, "abc").Build(),
       {}},
      {"other resources are not shares",
       PodBuilder().Container("a").Gpu("tencent.com/vcuda-memory", "150").Build(),
       {}},
      {"unmanaged vcuda-core is ignored",
       PodBuilder().Container("a").Gpu(kCore, "150").Build(),
       {},
       WithoutVcuda()},
  };
  testing::ExpectRule(CheckVcudaCoreShares, kVcudaCoreSharesRule, cases);
}

}  // namespace
}  // namespace gpugate::policy
