// Which copy of a GPUQuota record the cache gives Reserve and /quota when the watch and this
// replica's own writes disagree. resourceVersions here are opaque, as an API server may issue
// them: which copy is newer must follow from the watch's order of events, never from comparing
// the versions.
#include "cluster/cluster_cache.h"

#include <gtest/gtest.h>

namespace gpugate::cluster {
namespace {

using nlohmann::json;

// A list of `items` through the handlers, as the informer delivers one.
void Deliver(const InformerHandlers& handlers, const std::vector<json>& items) {
  std::unique_ptr<ListSink> sink = handlers.onList();
  for (const json& item : items) sink->Add(item);
  sink->Commit();
}

// A team-a record at resourceVersion `rv` holding `gpus` GPUs.
json RecordAt(const std::string& rv, int gpus) {
  json charges = json::object();
  for (int i = 0; i < gpus; ++i) {
    charges["p" + std::to_string(i)] = json::array({{{"uid", "u" + std::to_string(i)},
                                                     {"admitted", "2024-05-01T12:00:00.000Z"},
                                                     {"amounts", {{"nvidia.com/gpu", "1"}}}}});
  }
  return {{"apiVersion", "gpugate.io/v1alpha1"},
          {"kind", "GPUQuota"},
          {"metadata", {{"name", "gpugate"}, {"namespace", "team-a"}, {"resourceVersion", rv}}},
          {"status", {{"charges", charges}}}};
}

GpuQuotaRecord Written(const std::string& rv, int gpus) {
  GpuQuotaRecord record = DecodeGpuQuota(RecordAt(rv, gpus));
  record.ns = "team-a";
  return record;
}

// What the cache offers for team-a: "rv:gpus", or "none".
std::string Shown(const ClusterCache& cache) {
  std::optional<GpuQuotaRecord> record = cache.Record("team-a");
  if (!record) return "none";
  auto used = record->Used();
  auto gpus = used.contains("nvidia.com/gpu") ? used.at("nvidia.com/gpu") / quota::kMilli : 0;
  return record->resourceVersion() + ":" + std::to_string(gpus);
}

struct Step {
  enum Kind { kList, kEvent, kDeleted, kWrite } kind;
  std::string rv;
  int gpus;
  std::string want;  // Shown() after the step
};

struct Case {
  std::string name;
  std::vector<Step> steps;
};

TEST(ClusterCacheTest, OwnWritesAndTheWatchAgreeWithoutComparingVersions) {
  // Versions chosen so that neither numbers nor text order them as they were issued.
  const Case cases[] = {
      {"the watch lags behind our write, then catches up",
       {{Step::kList, "zz-1", 1, "zz-1:1"},
        {Step::kWrite, "aa-3", 3, "aa-3:3"},
        {Step::kEvent, "mm-2", 2, "aa-3:3"},  // an earlier write, delivered late
        {Step::kEvent, "aa-3", 3, "aa-3:3"},
        {Step::kEvent, "bb-4", 1, "bb-4:1"}}},  // someone else's write after ours
      {"the watch delivered our write before its answer came back",
       {{Step::kList, "zz-1", 1, "zz-1:1"},
        {Step::kEvent, "aa-3", 3, "aa-3:3"},
        {Step::kEvent, "bb-4", 1, "bb-4:1"},
        {Step::kWrite, "aa-3", 3, "bb-4:1"}}},
      {"a relist replaces our write",
       {{Step::kList, "zz-1", 1, "zz-1:1"},
        {Step::kWrite, "aa-3", 3, "aa-3:3"},
        {Step::kList, "cc-9", 0, "cc-9:0"},
        {Step::kEvent, "dd-10", 2, "dd-10:2"}}},
      {"a record deleted and created again by us",
       {{Step::kList, "zz-1", 1, "zz-1:1"},
        {Step::kDeleted, "yy-2", 1, "none"},
        {Step::kWrite, "xx-3", 2, "xx-3:2"},
        {Step::kEvent, "xx-3", 2, "xx-3:2"}}},
  };
  quota::QuotaConfig config;
  policy::Settings settings;
  for (const Case& c : cases) {
    ClusterCache cache(
        config, settings, "gpugate", [] { return WallClock::now(); }, nullptr);
    InformerHandlers handlers = cache.RecordHandlers();
    for (size_t i = 0; i < c.steps.size(); ++i) {
      const Step& step = c.steps[i];
      switch (step.kind) {
        case Step::kList:
          Deliver(handlers, {RecordAt(step.rv, step.gpus)});
          break;
        case Step::kEvent:
          handlers.onEvent({WatchEvent::Type::kModified, RecordAt(step.rv, step.gpus)});
          break;
        case Step::kDeleted:
          handlers.onEvent({WatchEvent::Type::kDeleted, RecordAt(step.rv, step.gpus)});
          break;
        case Step::kWrite:
          cache.StoreRecord(Written(step.rv, step.gpus));
          break;
      }
      EXPECT_EQ(Shown(cache), step.want) << c.name << ", step " << i + 1;
    }
  }
}

// A pod in `ns` asking for `gpus` nvidia.com/gpu (none: a CPU pod).
json Pod(const std::string& ns, const std::string& name, int gpus,
         const std::string& phase = "Running") {
  json limits = {{"cpu", "2"}, {"memory", "4Gi"}};
  if (gpus > 0) limits["nvidia.com/gpu"] = std::to_string(gpus);
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata",
           {{"name", name},
            {"namespace", ns},
            {"uid", "uid-" + name},
            {"labels", {{"app", "web"}}},
            {"annotations", {{"note", std::string(2000, 'x')}}}}},
          {"spec",
           {{"containers",
             json::array({{{"name", "main"},
                           {"image", "registry.example/app:1"},
                           {"resources", {{"limits", limits}, {"requests", limits}}}}})}}},
          {"status", {{"phase", phase}}}};
}

// The cache's pods: "ns/name uid amounts [terminal] [deleting] [gone]", one per line.
std::string Pods(const ClusterCache& cache) {
  std::string out;
  for (const auto& [ns, state] : cache.Snapshot()) {
    for (const auto& [name, pod] : state.pods) {
      out += ns + "/" + name + " " + pod.uid + " " + quota::FormatAmounts(pod.amounts) +
             (pod.terminal ? " terminal" : "") + (pod.deleting ? " deleting" : "") +
             (pod.goneSince != WallClock::time_point{} ? " gone" : "") + "\n";
    }
  }
  return out;
}

TEST(ClusterCacheTest, KeepsOnlyGpuPodsAndOnlyWhatTheLedgerUsesOfThem) {
  quota::QuotaConfig config;
  policy::Settings settings;  // kube-system is exempt
  ClusterCache cache(
      config, settings, "gpugate", [] { return WallClock::now(); }, nullptr);
  InformerHandlers handlers = cache.PodHandlers();
  // 1,000 pods in 50 namespaces; every 100th asks for GPUs.
  std::vector<json> pods;
  for (int i = 0; i < 1000; ++i) {
    std::string ns = "team-" + std::to_string(i % 50);
    pods.push_back(Pod(ns, "p" + std::to_string(i), i % 100 == 0 ? 1 + i / 500 : 0));
  }
  pods.push_back(Pod("team-0", "done", 2, "Succeeded"));
  pods.push_back(Pod("kube-system", "driver", 1));  // exempt: never charged
  json leaving = Pod("team-1", "leaving", 1);
  leaving["metadata"]["deletionTimestamp"] = "2024-05-01T12:00:00Z";
  pods.push_back(leaving);
  Deliver(handlers, pods);
  // The entries no event below touches.
  const std::string p300to900 =
      "team-0/p300 uid-p300 nvidia.com/gpu=1\n"
      "team-0/p400 uid-p400 nvidia.com/gpu=1\n"
      "team-0/p500 uid-p500 nvidia.com/gpu=2\n"
      "team-0/p600 uid-p600 nvidia.com/gpu=2\n"
      "team-0/p700 uid-p700 nvidia.com/gpu=2\n"
      "team-0/p800 uid-p800 nvidia.com/gpu=2\n"
      "team-0/p900 uid-p900 nvidia.com/gpu=2\n";
  EXPECT_EQ(Pods(cache),
            "team-0/done uid-done nvidia.com/gpu=2 terminal\n"
            "team-0/p0 uid-p0 nvidia.com/gpu=1\n"
            "team-0/p100 uid-p100 nvidia.com/gpu=1\n"
            "team-0/p200 uid-p200 nvidia.com/gpu=1\n" +
                p300to900 + "team-1/leaving uid-leaving nvidia.com/gpu=1 deleting\n");

  // Watch events: CPU pods come and go without an entry; GPU pods keep theirs up to date.
  handlers.onEvent({WatchEvent::Type::kAdded, Pod("team-7", "web", 0)});
  handlers.onEvent({WatchEvent::Type::kDeleted, Pod("team-3", "p3", 0)});
  handlers.onEvent({WatchEvent::Type::kAdded, Pod("team-7", "train", 4)});
  handlers.onEvent({WatchEvent::Type::kModified, Pod("team-0", "p100", 1, "Failed")});
  handlers.onEvent({WatchEvent::Type::kDeleted, Pod("team-0", "p200", 1)});
  std::string afterEvents = Pods(cache);
  EXPECT_EQ(afterEvents,
            "team-0/done uid-done nvidia.com/gpu=2 terminal\n"
            "team-0/p0 uid-p0 nvidia.com/gpu=1\n"
            "team-0/p100 uid-p100 nvidia.com/gpu=1 terminal\n"
            "team-0/p200 uid-p200 nvidia.com/gpu=1 terminal gone\n" +
                p300to900 +
                "team-1/leaving uid-leaving nvidia.com/gpu=1 deleting\n"
                "team-7/train uid-train nvidia.com/gpu=4\n");

  // A list abandoned part way (its continue token expired) changes nothing.
  {
    std::unique_ptr<ListSink> abandoned = handlers.onList();
    abandoned->Add(Pod("team-9", "half", 1));
  }
  EXPECT_EQ(Pods(cache), afterEvents);
  // A complete list replaces everything, tombstones included.
  Deliver(handlers, {Pod("team-9", "only", 1), Pod("team-9", "cpu", 0)});
  EXPECT_EQ(Pods(cache), "team-9/only uid-only nvidia.com/gpu=1\n");
}

// When each GPU pod started and stopped holding its devices, as the watch shows it: the edges a
// released charge's usage is accrued over (docs/quota.md, "When a pod starts and stops").
TEST(ClusterCacheTest, KeepsEachPodsStartAndEnd) {
  const WallClock::time_point t0 = WallClock::from_time_t(1795000000);
  WallClock::time_point now = t0;
  quota::QuotaConfig config;
  policy::Settings settings;
  ClusterCache cache(
      config, settings, "gpugate", [&] { return now; }, nullptr);
  InformerHandlers handlers = cache.PodHandlers();
  auto started = [](json pod, const char* at) {
    pod["status"]["startTime"] = at;
    return pod;
  };
  auto finishedAt = [](json pod, std::vector<const char*> at) {
    for (const char* t : at) {
      pod["status"]["containerStatuses"].push_back(
          {{"name", "c"}, {"state", {{"terminated", {{"finishedAt", t}}}}}});
    }
    return pod;
  };
  // "ns/name start=.. end=..", seconds after t0.
  auto edges = [&] {
    std::string out;
    for (const auto& [ns, state] : cache.Snapshot()) {
      for (const auto& [name, pod] : state.pods) {
        auto at = [&](const std::optional<WallClock::time_point>& t) {
          return t ? std::to_string(
                         std::chrono::duration_cast<std::chrono::seconds>(*t - t0).count())
                   : std::string("-");
        };
        out += name + " start=" + at(pod.started) + " end=" + at(pod.ended) + "\n";
      }
    }
    return out;
  };
  Deliver(handlers,
          {started(Pod("team-a", "run", 1), "2026-11-18T10:50:00Z"),  // t0 - 1000 s
           Pod("team-a", "pending", 1),
           finishedAt(started(Pod("team-a", "done", 1, "Succeeded"), "2026-11-18T10:50:00Z"),
                      {"2026-11-18T10:46:40Z", "2026-11-18T11:06:40Z"})});
  EXPECT_EQ(edges(),
            "done start=-1000 end=0\n"  // the latest finishedAt of its containers
            "pending start=- end=-\n"
            "run start=-1000 end=-\n");

  now = t0 + std::chrono::seconds(50);
  // Finished with no finishedAt given: when the watch showed it; a later event changes nothing.
  handlers.onEvent({WatchEvent::Type::kModified,
                    started(Pod("team-a", "run", 1, "Failed"), "2026-11-18T10:50:00Z")});
  now = t0 + std::chrono::seconds(80);
  handlers.onEvent({WatchEvent::Type::kModified,
                    started(Pod("team-a", "run", 1, "Failed"), "2026-11-18T10:50:00Z")});
  // Deleted while running, within its grace period: when the watch showed it gone.
  json leaving = started(Pod("team-a", "leaving", 1), "2026-11-18T11:06:40Z");
  leaving["metadata"]["deletionTimestamp"] = "2026-11-18T11:08:20Z";  // t0 + 100 s
  leaving["metadata"]["deletionGracePeriodSeconds"] = 30;
  handlers.onEvent({WatchEvent::Type::kAdded, leaving});
  handlers.onEvent({WatchEvent::Type::kDeleted, leaving});
  // Deleted long after its deletionTimestamp + grace: then.
  json stuck = started(Pod("team-a", "stuck", 1), "2026-11-18T11:06:40Z");
  stuck["metadata"]["deletionTimestamp"] = "2026-11-18T11:06:50Z";  // t0 + 10 s
  stuck["metadata"]["deletionGracePeriodSeconds"] = 0;
  handlers.onEvent({WatchEvent::Type::kAdded, stuck});
  handlers.onEvent({WatchEvent::Type::kDeleted, stuck});
  const std::string afterEvents =
      "done start=-1000 end=0\n"
      "leaving start=0 end=80\n"
      "pending start=- end=-\n"
      "run start=-1000 end=50\n"
      "stuck start=0 end=10\n";
  EXPECT_EQ(edges(), afterEvents);

  // A relist shows the finished pod again: the end seen first stands.
  now = t0 + std::chrono::seconds(500);
  Deliver(handlers, {started(Pod("team-a", "run", 1, "Failed"), "2026-11-18T10:50:00Z")});
  EXPECT_EQ(edges(), "run start=-1000 end=50\n");
}

}  // namespace
}  // namespace gpugate::cluster
