#include "policy/pod_facts.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace gpugate::policy {
namespace {

TEST(OwnPodSpec, TheSpecAtSlashSpecOnly) {
  const struct {
    std::string name;
    std::vector<std::string> pointers;
    std::string want;  // "": none
  } cases[] = {
      {"a Pod's own", {"/spec"}, "/spec"},
      {"a template elsewhere in the object first", {"/spec/template/spec", "/spec"}, "/spec"},
      {"only a template", {"/spec/template/spec"}, ""},
      {"no pod spec", {}, ""},
      {"a pointer that only starts like it", {"/specs"}, ""},
  };
  for (const auto& c : cases) {
    ObjectView view;
    for (const std::string& p : c.pointers) view.podSpecs.push_back({.pointer = p});
    const PodSpecView* own = OwnPodSpec(view);
    EXPECT_EQ(own ? own->pointer : "", c.want) << c.name;
  }
}

TEST(IsFinishedPhase, SucceededOrFailed) {
  const struct {
    std::string phase;
    bool want;
  } cases[] = {
      {"Succeeded", true}, {"Failed", true}, {"Running", false}, {"Pending", false},
      {"Unknown", false},  {"", false},      {"failed", false},  // phases are case-sensitive
  };
  for (const auto& c : cases) EXPECT_EQ(IsFinishedPhase(c.phase), c.want) << c.phase;
}

}  // namespace
}  // namespace gpugate::policy
