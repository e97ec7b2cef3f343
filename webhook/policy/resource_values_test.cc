#include "policy/resource_values.h"

#include <gtest/gtest.h>

#include "policy/testing.h"

namespace gpugate::policy {
namespace {

using testing::PodBuilder;

TEST(ManagedValues, ByNameLimitBeforeRequestManagedOnly) {
  PodSpecView pod = PodBuilder()
                        .Container("a")
                        .Request("nvidia.com/gpu", "1")
                        .Request("amd.com/gpu", "2")
                        .Limit("nvidia.com/gpu", "3")
                        .Limit("cpu", "4")
                        .Limit("tencent.com/vcuda-core", "5")
                        .Build();
  std::string got;
  for (const ResourceValue& v : ManagedValues(pod.containers[0], Settings{})) {
    got += std::string(v.resource) + " " + std::string(v.field) + " " + std::string(v.text->text) +
           "; ";
  }
  EXPECT_EQ(got,
            "amd.com/gpu request 2; nvidia.com/gpu limit 3; nvidia.com/gpu request 1; "
            "tencent.com/vcuda-core limit 5; ");
}

TEST(UnitNoun, Table) {
  struct Case {
    std::string resource, want;
  } cases[] = {
      {"nvidia.com/gpu", "GPUs"},         {"amd.com/gpu", "GPUs"},
      {"nvidia.com/mig-1g.5gb", "GPUs"},  {"volcano.sh/gpu-number", "GPUs"},
      {"volcano.sh/gpu-memory", "units"}, {"tencent.com/vcuda-core", "units"},
      {"nvidia.com/gpumem", "units"},     {"example.com/gpus", "units"},
  };
  for (const Case& c : cases) EXPECT_EQ(UnitNoun(c.resource), c.want) << c.resource;
}

// By value when both parse, else as written; a wrong JSON type equals only the same wrong type.
TEST(SameQuantity, Table) {
  struct Case {
    QuantityText a, b;
    bool same;
  } cases[] = {
      {{"1"}, {"1"}, true},
      {{"0.5"}, {"500m"}, true},
      {{"1"}, {" 1 "}, true},  // trimmed, as Kubernetes parses
      {{"1"}, {"2"}, false},
      {{"1Gi"}, {"1G"}, false},
      {{"two"}, {"two"}, true},  // neither parses: the same text
      {{"two"}, {"three"}, false},
      {{"1"}, {"one"}, false},
      {{"object", true}, {"object", true}, true},
      {{"object", true}, {"array", true}, false},
      {{"object", true}, {"object"}, false},  // a wrong type is not the string that names it
      {{"object"}, {"object", true}, false},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(SameQuantity(c.a, c.b), c.same) << c.a.text << " " << c.b.text;
    EXPECT_EQ(SameQuantity(c.b, c.a), c.same) << c.b.text << " " << c.a.text;
  }
}

TEST(ValidWholeQuantity, Table) {
  struct Case {
    QuantityText text;
    std::string want;  // the value, or "-" when refused
  } cases[] = {
      {{"2"}, "2"},  {{"2000m"}, "2"}, {{" 3\t"}, "3"}, {{"0"}, "0"},  {{"0.5"}, "-"},
      {{"-1"}, "-"}, {{"abc"}, "-"},   {{""}, "-"},     {{"  "}, "-"}, {{"object", true}, "-"},
  };
  for (const Case& c : cases) {
    std::optional<Quantity> q = ValidWholeQuantity(c.text);
    EXPECT_EQ(q ? q->ToString() : "-", c.want) << c.text.text;
  }
}

}  // namespace
}  // namespace gpugate::policy
