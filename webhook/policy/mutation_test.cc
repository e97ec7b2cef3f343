#include "policy/mutation.h"

#include <gtest/gtest.h>

#include "policy/testing.h"

namespace gpugate::policy {
namespace {

using testing::PodBuilder;

constexpr char kGpu[] = "nvidia.com/gpu";
constexpr char kVcudaMemory[] = "tencent.com/vcuda-memory";
constexpr char kVolcanoMemory[] = "volcano.sh/gpu-memory";

std::string Describe(const TolerationView& t) {
  std::string out;
  for (std::string_view part : {t.key, t.op, t.value}) (out += part) += ':';
  return out += t.effect;
}

// The plan as the lines a reader of the patch would list.
std::vector<std::string> Lines(const MutationPlan& plan) {
  std::vector<std::string> out;
  for (const auto& t : plan.addTolerations) out.push_back("toleration " + Describe(t));
  if (plan.schedulerName) out.push_back("schedulerName " + *plan.schedulerName);
  if (plan.coreLimit) out.push_back("coreLimit " + *plan.coreLimit);
  return out;
}

PodSpecView WithTolerations(PodSpecView pod, std::vector<TolerationView> tolerations) {
  pod.hasTolerations = true;
  pod.tolerations = std::move(tolerations);
  return pod;
}

TEST(Covers, Table) {
  const TolerationView gpu = {.key = kGpu, .op = "Exists", .effect = "NoSchedule"};
  const TolerationView dedicatedGpu = {
      .key = "dedicated", .op = "Equal", .value = "gpu", .effect = "NoSchedule"};
  struct Case {
    std::string name;
    TolerationView existing;
    TolerationView wanted;
    bool want;
  } cases[] = {
      {"the same Exists toleration", gpu, gpu, true},
      {"Exists for every effect", {.key = kGpu, .op = "Exists"}, gpu, true},
      {"Exists for another effect",
       {.key = kGpu, .op = "Exists", .effect = "NoExecute"},
       gpu,
       false},
      {"one effect does not cover every effect", gpu, {.key = kGpu, .op = "Exists"}, false},
      {"Exists for another key",
       {.key = "amd.com/gpu", .op = "Exists", .effect = "NoSchedule"},
       gpu,
       false},
      {"empty key with Exists tolerates every taint", {.op = "Exists"}, gpu, true},
      {"empty key with Exists, limited to an effect",
       {.op = "Exists", .effect = "NoSchedule"},
       dedicatedGpu,
       true},
      {"empty key with Exists, another effect",
       {.op = "Exists", .effect = "NoExecute"},
       gpu,
       false},
      {"empty key with Equal tolerates nothing", {.op = "Equal"}, gpu, false},
      {"empty key with no operator (Equal) tolerates nothing", {}, gpu, false},
      {"Equal does not cover Exists",
       {.key = kGpu, .op = "Equal", .effect = "NoSchedule"},
       gpu,
       false},
      {"Equal with the same value", dedicatedGpu, dedicatedGpu, true},
      {"no operator means Equal",
       {.key = "dedicated", .value = "gpu", .effect = "NoSchedule"},
       dedicatedGpu,
       true},
      {"Equal with another value",
       {.key = "dedicated", .op = "Equal", .value = "cpu", .effect = "NoSchedule"},
       dedicatedGpu,
       false},
      {"Exists covers every value of its key",
       {.key = "dedicated", .op = "Exists", .effect = "NoSchedule"},
       dedicatedGpu,
       true},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(Covers(c.existing, c.wanted), c.want) << c.name;
  }
}

Settings NoTolerationFor(std::string_view name) {
  Settings s;
  for (auto& r : s.resources) {
    if (r.name == name) r.toleration = false;
  }
  return s;
}

Settings ConfiguredTolerations() {
  Settings s;
  s.tolerations = {{.key = "dedicated", .op = "Equal", .value = "gpu", .effect = "NoSchedule"},
                   {.key = kGpu, .op = "Exists", .effect = "NoSchedule"}};
  return s;
}

Settings MutationScheduler() {
  Settings s;
  s.schedulerName = "hami-scheduler";
  return s;
}

Settings ConflictingSchedulers() {
  Settings s;
  s.resources.push_back(testing::Resource("example.com/x", "other"));
  return s;
}

Settings CoreLimitOf(CoreLimitMode mode, int value = 0) {
  Settings s;
  s.coreLimit = {.mode = mode, .value = value};
  return s;
}

struct PlanCase {
  std::string name;
  PodSpecView pod;
  std::vector<std::string> want;
  Settings settings = {};
};

void RunPlanCases(const std::vector<PlanCase>& cases) {
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    MutationPlan plan = PlanMutation(c.pod, c.settings);
    EXPECT_EQ(Lines(plan), c.want);
    EXPECT_EQ(plan.Empty(), c.want.empty());
  }
}

TEST(PlanMutation, Tolerations) {
  RunPlanCases({
      {"a pod without managed resources is left alone",
       PodBuilder().Container("a").Gpu("cpu", "2").Gpu("memory", "1Gi").Build(),
       {}},
      {"a zero request is no request", PodBuilder().Container("a").Gpu(kGpu, "0").Build(), {}},
      {"an invalid quantity is left to the rules",
       PodBuilder().Container("a").Gpu(kGpu, "x").Build(),
       {}},
      {"one resource",
       PodBuilder().Container("a").Gpu(kGpu, "1").Build(),
       {"toleration nvidia.com/gpu:Exists::NoSchedule"}},
      {"a limit alone counts",
       PodBuilder().Container("a").Limit(kGpu, "1").Build(),
       {"toleration nvidia.com/gpu:Exists::NoSchedule"}},
      {"one per requested resource, sorted by name",
       PodBuilder()
           .Container("a")
           .Gpu(kVcudaMemory, "10")
           .Container("b")
           .Gpu(kGpu, "1")
           .Init("setup")
           .Gpu("amd.com/gpu", "1")
           .Build(),
       {"toleration amd.com/gpu:Exists::NoSchedule", "toleration nvidia.com/gpu:Exists::NoSchedule",
        "toleration tencent.com/vcuda-memory:Exists::NoSchedule"}},
      {"two containers with the same resource get one toleration",
       PodBuilder().Container("a").Gpu(kGpu, "1").Container("b").Gpu(kGpu, "2").Build(),
       {"toleration nvidia.com/gpu:Exists::NoSchedule"}},
      {"a pattern resource is tolerated by its own name",
       PodBuilder().Container("a").Gpu("nvidia.com/mig-1g.5gb", "1").Build(),
       {"toleration nvidia.com/mig-1g.5gb:Exists::NoSchedule"}},
      {"an existing Exists toleration covers it",
       WithTolerations(PodBuilder().Container("a").Gpu(kGpu, "1").Build(),
                       {{.key = kGpu, .op = "Exists"}}),
       {}},
      {"an existing tolerate-everything covers it",
       WithTolerations(PodBuilder().Container("a").Gpu(kGpu, "1").Build(), {{.op = "Exists"}}),
       {}},
      {"an existing Equal toleration does not cover it",
       WithTolerations(PodBuilder().Container("a").Gpu(kGpu, "1").Build(),
                       {{.key = kGpu, .op = "Equal", .value = "present", .effect = "NoSchedule"}}),
       {"toleration nvidia.com/gpu:Exists::NoSchedule"}},
      {"a resource configured without toleration",
       PodBuilder().Container("a").Gpu(kGpu, "1").Gpu("amd.com/gpu", "1").Build(),
       {"toleration amd.com/gpu:Exists::NoSchedule"},
       NoTolerationFor(kGpu)},
      {"mutation.tolerations follow, without repeating one already planned",
       PodBuilder().Container("a").Gpu(kGpu, "1").Build(),
       {"toleration nvidia.com/gpu:Exists::NoSchedule",
        "toleration dedicated:Equal:gpu:NoSchedule"},
       ConfiguredTolerations()},
      {"mutation.tolerations the pod already has are not added",
       WithTolerations(
           PodBuilder().Container("a").Gpu(kVcudaMemory, "1").Build(),
           {{.key = "dedicated", .op = "Equal", .value = "gpu", .effect = "NoSchedule"}}),
       {"toleration tencent.com/vcuda-memory:Exists::NoSchedule",
        "toleration nvidia.com/gpu:Exists::NoSchedule"},
       ConfiguredTolerations()},
      {"mutation.tolerations are for GPU pods only",
       PodBuilder().Container("a").Gpu("cpu", "1").Build(),
       {},
       ConfiguredTolerations()},
  });
}

TEST(PlanMutation, SchedulerName) {
  const std::string volcanoTol = "toleration volcano.sh/gpu-memory:Exists::NoSchedule";
  RunPlanCases({
      {"absent: set to the resource's scheduler",
       PodBuilder().Container("a").Gpu(kVolcanoMemory, "1024").Build(),
       {volcanoTol, "schedulerName volcano"}},
      {"default-scheduler: replaced",
       PodBuilder()
           .Container("a")
           .Gpu(kVolcanoMemory, "1024")
           .SchedulerName("default-scheduler")
           .Build(),
       {volcanoTol, "schedulerName volcano"}},
      {"already the required scheduler",
       PodBuilder().Container("a").Gpu(kVolcanoMemory, "1024").SchedulerName("volcano").Build(),
       {volcanoTol}},
      {"an explicit other scheduler is kept (validation reports it)",
       PodBuilder().Container("a").Gpu(kVolcanoMemory, "1024").SchedulerName("custom").Build(),
       {volcanoTol}},
      {"resources that need no scheduler",
       PodBuilder().Container("a").Gpu(kGpu, "1").Build(),
       {"toleration nvidia.com/gpu:Exists::NoSchedule"}},
      {"mutation.schedulerName for every GPU pod",
       PodBuilder().Container("a").Gpu(kGpu, "1").Build(),
       {"toleration nvidia.com/gpu:Exists::NoSchedule", "schedulerName hami-scheduler"},
       MutationScheduler()},
      {"mutation.schedulerName replaces default-scheduler",
       PodBuilder().Container("a").Gpu(kGpu, "1").SchedulerName("default-scheduler").Build(),
       {"toleration nvidia.com/gpu:Exists::NoSchedule", "schedulerName hami-scheduler"},
       MutationScheduler()},
      {"mutation.schedulerName keeps an explicit other scheduler",
       PodBuilder().Container("a").Gpu(kGpu, "1").SchedulerName("volcano").Build(),
       {"toleration nvidia.com/gpu:Exists::NoSchedule"},
       MutationScheduler()},
      {"mutation.schedulerName does not touch CPU pods",
       PodBuilder().Container("a").Gpu("cpu", "1").Build(),
       {},
       MutationScheduler()},
      {"schedulers in conflict: none is guessed",
       PodBuilder().Container("a").Gpu(kVolcanoMemory, "1").Gpu("example.com/x", "1").Build(),
       {"toleration example.com/x:Exists::NoSchedule", volcanoTol},
       ConflictingSchedulers()},
  });
}

TEST(PlanMutation, CoreLimit) {
  const std::string coreTol = "toleration tencent.com/vcuda-core:Exists::NoSchedule";
  RunPlanCases({
      {"a share of a card: its share",
       PodBuilder().Container("a").Gpu(std::string(kVcudaCore), "50").Build(),
       {coreTol, "coreLimit 50"}},
      {"the smallest share among the containers",
       PodBuilder()
           .Container("a")
           .Gpu(std::string(kVcudaCore), "70")
           .Container("b")
           .Gpu(std::string(kVcudaCore), "30")
           .Build(),
       {coreTol, "coreLimit 30"}},
      {"a request alone counts",
       PodBuilder().Container("a").Request(std::string(kVcudaCore), "60").Build(),
       {coreTol, "coreLimit 60"}},
      {"the limit wins over the request",
       PodBuilder()
           .Container("a")
           .Limit(std::string(kVcudaCore), "40")
           .Request(std::string(kVcudaCore), "20")
           .Build(),
       {coreTol, "coreLimit 40"}},
      {"a share beside a whole card: the share",
       PodBuilder()
           .Container("a")
           .Gpu(std::string(kVcudaCore), "200")
           .Container("b")
           .Gpu(std::string(kVcudaCore), "25")
           .Build(),
       {coreTol, "coreLimit 25"}},
      {"a whole card gets none",
       PodBuilder().Container("a").Gpu(std::string(kVcudaCore), "100").Build(),
       {coreTol}},
      {"whole cards get none",
       PodBuilder()
           .Container("a")
           .Gpu(std::string(kVcudaCore), "200")
           .Container("b")
           .Gpu(std::string(kVcudaCore), "100")
           .Build(),
       {coreTol}},
      {"a fractional share is left to the rules",
       PodBuilder().Container("a").Gpu(std::string(kVcudaCore), "0.5").Build(),
       {coreTol}},
      {"memory alone sets no core limit",
       PodBuilder().Container("a").Gpu(kVcudaMemory, "10").Build(),
       {"toleration tencent.com/vcuda-memory:Exists::NoSchedule"}},
      {"fixed: the configured value",
       PodBuilder().Container("a").Gpu(std::string(kVcudaCore), "50").Build(),
       {coreTol, "coreLimit 25"},
       CoreLimitOf(CoreLimitMode::kFixed, 25)},
      {"fixed: whole cards still get none",
       PodBuilder().Container("a").Gpu(std::string(kVcudaCore), "100").Build(),
       {coreTol},
       CoreLimitOf(CoreLimitMode::kFixed, 25)},
      {"off: never",
       PodBuilder().Container("a").Gpu(std::string(kVcudaCore), "50").Build(),
       {coreTol},
       CoreLimitOf(CoreLimitMode::kOff)},
      {"the user's annotation is never overwritten",
       PodBuilder()
           .Container("a")
           .Gpu(std::string(kVcudaCore), "50")
           .Annotation(std::string(kVcudaCoreLimitAnnotation), "80")
           .Build(),
       {coreTol}},
      {"an empty user annotation is still the user's",
       PodBuilder()
           .Container("a")
           .Gpu(std::string(kVcudaCore), "50")
           .Annotation(std::string(kVcudaCoreLimitAnnotation), "")
           .Build(),
       {coreTol}},
      {"other annotations do not stop it",
       PodBuilder()
           .Container("a")
           .Gpu(std::string(kVcudaCore), "50")
           .Annotation("team", "ml")
           .Build(),
       {coreTol, "coreLimit 50"}},
  });
}

TEST(PlanMutation, AnAlreadyMutatedPodGetsAnEmptyPlan) {
  Settings settings = ConfiguredTolerations();
  settings.resources.push_back(testing::Resource("example.com/npu", "volcano"));
  PodSpecView pod = PodBuilder()
                        .Container("a")
                        .Gpu(std::string(kVcudaCore), "50")
                        .Gpu("example.com/npu", "1")
                        .Build();
  MutationPlan first = PlanMutation(pod, settings);
  ASSERT_EQ(Lines(first),
            (std::vector<std::string>{"toleration example.com/npu:Exists::NoSchedule",
                                      "toleration tencent.com/vcuda-core:Exists::NoSchedule",
                                      "toleration dedicated:Equal:gpu:NoSchedule",
                                      "toleration nvidia.com/gpu:Exists::NoSchedule",
                                      "schedulerName volcano", "coreLimit 50"}));
  // Apply the plan to the view, as the patch does to the object (reinvocationPolicy IfNeeded).
  PodSpecView mutated = WithTolerations(pod, first.addTolerations);
  mutated.schedulerName = *first.schedulerName;
  mutated.hasSchedulerName = true;
  mutated.hasAnnotations = true;
  mutated.annotations = {{kVcudaCoreLimitAnnotation, *first.coreLimit}};
  EXPECT_EQ(Lines(PlanMutation(mutated, settings)), std::vector<std::string>{});
}

}  // namespace
}  // namespace gpugate::policy
