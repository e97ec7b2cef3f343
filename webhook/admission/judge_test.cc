#include "admission/judge.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "quota/usage_snapshot.h"
#include "review/pod_spec_finder.h"

namespace gpugate::admission {
namespace {

using nlohmann::json;
using policy::Mode;

json PodSpec(const std::string& gpus, bool pinned) {
  json spec = {
      {"containers", json::array({{{"name", "main"},
                                   {"image", "x"},
                                   {"resources", {{"limits", {{"nvidia.com/gpu", gpus}}}}}}})}};
  if (pinned) spec["nodeSelector"] = {{"nvidia.com/gpu.product", "A100"}};
  return spec;
}

json Pod(const std::string& gpus, bool pinned = false) {
  return {{"apiVersion", "v1"}, {"kind", "Pod"}, {"spec", PodSpec(gpus, pinned)}};
}

json Deployment(const std::string& gpus) {
  return {{"apiVersion", "apps/v1"},
          {"kind", "Deployment"},
          {"spec", {{"template", {{"spec", PodSpec(gpus, false)}}}}}};
}

// A whole GPU, so it is charged (and pinned), in a privileged container: privileged-gpu finds it.
json PrivilegedDeployment() {
  json d = Deployment("1");
  d["spec"]["template"]["spec"]["containers"][0]["securityContext"] = {{"privileged", true}};
  return d;
}

// "exempt"; or "rules: deny whole-units; pin: deny spec.nodeSelector; charge: nvidia.com/gpu=1",
// leaving out what is empty; "nothing" when all is.
std::string Render(const Verdict& v) {
  static constexpr const char* kUnjudged[] = {"exempt", "deleting", "finished"};  // enum order
  if (v.unjudged) return kUnjudged[static_cast<int>(*v.unjudged)];
  auto list = [](const std::vector<review::RuleFinding>& findings, bool rule) {
    std::string out;
    for (const review::RuleFinding& f : findings) {
      out += (out.empty() ? "" : ", ") + std::string(policy::ModeName(f.mode)) + " " +
             (rule ? f.rule : f.subject);
    }
    return out;
  };
  std::string out;
  auto part = [&](std::string_view name, const std::string& text) {
    if (!text.empty()) out += (out.empty() ? "" : "; ") + std::string(name) + ": " + text;
  };
  part("rules", list(v.rules.findings, true));
  part("pin", list(v.unpinned, false));
  part("charge", quota::FormatAmounts(v.charge));
  return out.empty() ? "nothing" : out;
}

quota::QuotaConfig PerModelQuota() {
  quota::QuotaConfig config;
  config.flavors = {{.name = "a100", .nodeLabels = {{"nvidia.com/gpu.product", "A100"}}}};
  config.limits["team-f"] = {{"nvidia.com/gpu@a100", 2000}};  // quota per model, no default
  config.limits["team-d"] = {{"nvidia.com/gpu@a100", 2000}};  // ... and a default model
  config.defaultFlavors["team-d"] = "a100";
  return config;
}

TEST(Judge, EachVerdictKind) {
  const struct {
    std::string name;
    json object;
    std::string ns;
    Lifecycle lifecycle = Lifecycle::kLive;
    Asked asked = Asked::kCreation;
    policy::NamespaceLabels labels = {};
    bool quotaView = true;
    std::string want;
  } cases[] = {
      // Steps 1 and 2: not judged.
      {.name = "an exempt namespace", .object = Pod("0.5"), .ns = "kube-system", .want = "exempt"},
      {.name = "exempt before deleting",
       .object = Pod("0.5"),
       .ns = "kube-system",
       .lifecycle = Lifecycle::kDeleting,
       .want = "exempt"},
      {.name = "being deleted",
       .object = Deployment("0.5"),
       .ns = "team-a",
       .lifecycle = Lifecycle::kDeleting,
       .want = "deleting"},
      {.name = "a finished Pod",
       .object = Pod("0.5"),
       .ns = "team-a",
       .lifecycle = Lifecycle::kFinished,
       .want = "finished"},
      // Step 3: the rules, each finding in its mode in the namespace.
      {.name = "a rule's finding",
       .object = Pod("0.5"),
       .ns = "team-a",
       .quotaView = false,
       .want = "rules: deny whole-units"},
      {.name = "in the mode a label sets",
       .object = Deployment("0.5"),
       .ns = "team-a",
       .labels = {.mode = Mode::kWarn},
       .quotaView = false,
       .want = "rules: warn whole-units"},
      {.name = "nothing found",
       .object = Deployment("1"),
       .ns = "team-a",
       .quotaView = false,
       .want = "nothing"},
      // Step 4: the GPU-model pin, with a quota view.
      {.name = "a workload's unpinned template",
       .object = Deployment("1"),
       .ns = "team-f",
       .lifecycle = Lifecycle::kLive,
       .asked = Asked::kValidateUpdate,
       .want = "pin: deny spec.template.spec.nodeSelector"},
      {.name = "a workload where /mutate pins its pods",
       .object = Deployment("1"),
       .ns = "team-d",
       .want = "nothing"},
      {.name = "no pin without a quota view",
       .object = Deployment("1"),
       .ns = "team-f",
       .quotaView = false,
       .want = "nothing"},
      {.name = "a Pod at /validate on CREATE, past /mutate",
       .object = Pod("1"),
       .ns = "team-d",
       .lifecycle = Lifecycle::kLive,
       .asked = Asked::kValidateCreate,
       .want = "pin: deny spec.nodeSelector; charge: nvidia.com/gpu=1"},
      {.name = "a Pod's creation, /mutate ahead to pin it",
       .object = Pod("1"),
       .ns = "team-d",
       .want = "charge: nvidia.com/gpu=1"},
      {.name = "a Pod's creation where /mutate is off",
       .object = Pod("1"),
       .ns = "team-d",
       .labels = {.mutate = false},
       .want = "pin: deny spec.nodeSelector; charge: nvidia.com/gpu=1"},
      {.name = "the quota rule's mode",
       .object = Pod("1"),
       .ns = "team-f",
       .labels = {.mode = Mode::kAudit},
       .want = "pin: audit spec.nodeSelector; charge: nvidia.com/gpu=1"},
      {.name = "a rule's finding and the pin together",
       .object = PrivilegedDeployment(),
       .ns = "team-f",
       .want = "rules: deny privileged-gpu; pin: deny spec.template.spec.nodeSelector"},
      // Step 5: what a Pod's creation charges.
      {.name = "a pinned Pod's charge, per model too",
       .object = Pod("1", /*pinned=*/true),
       .ns = "team-f",
       .want = "charge: nvidia.com/gpu=1,nvidia.com/gpu@a100=1"},
      {.name = "a Pod's update: pin and charge were its creation's",
       .object = Pod("1"),
       .ns = "team-f",
       .lifecycle = Lifecycle::kLive,
       .asked = Asked::kValidateUpdate,
       .want = "nothing"},
      {.name = "no charge without a quota view",
       .object = Pod("1"),
       .ns = "team-f",
       .quotaView = false,
       .want = "nothing"},
  };
  const policy::Settings settings;  // kube-system exempt; nvidia.com/gpu managed
  const quota::UsageSnapshot snapshot(PerModelQuota());
  for (const auto& c : cases) {
    const policy::ObjectView view = review::FindPodSpecs(c.object);
    const bool isPod = c.object.value("kind", "") == "Pod";
    const Judge judge(settings, c.quotaView ? &snapshot : nullptr);
    const Verdict verdict = judge.Decide(
        {.object = view, .ns = c.ns, .isPod = isPod, .lifecycle = c.lifecycle}, c.labels, c.asked);
    EXPECT_EQ(Render(verdict), c.want) << c.name;
  }
}

TEST(Judge, FindingsAreTheRulesThenThePins) {
  const quota::UsageSnapshot snapshot(PerModelQuota());
  const policy::Settings settings;
  const policy::ObjectView view = review::FindPodSpecs(PrivilegedDeployment());
  const Verdict verdict =
      Judge(settings, &snapshot).Decide({.object = view, .ns = "team-f"}, {}, Asked::kCreation);
  std::vector<std::string> rules;
  for (const review::RuleFinding& f : verdict.Findings()) rules.push_back(f.rule);
  EXPECT_EQ(rules, (std::vector<std::string>{"privileged-gpu", "quota"}));
}

TEST(LifecycleOf, DeletingBeforeFinishedAndOnlyAPodFinishes) {
  EXPECT_EQ(LifecycleOf(true, false, "Running"), Lifecycle::kLive);
  EXPECT_EQ(LifecycleOf(true, false, "Succeeded"), Lifecycle::kFinished);
  EXPECT_EQ(LifecycleOf(true, false, "Failed"), Lifecycle::kFinished);
  EXPECT_EQ(LifecycleOf(true, true, "Failed"), Lifecycle::kDeleting);
  EXPECT_EQ(LifecycleOf(false, false, "Succeeded"), Lifecycle::kLive);
  EXPECT_EQ(LifecycleOf(false, true, ""), Lifecycle::kDeleting);
}

}  // namespace
}  // namespace gpugate::admission
