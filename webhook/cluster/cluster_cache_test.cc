// Which copy of a GPUQuota record the cache gives Reserve and /quota when the watch and this
// replica's own writes disagree. resourceVersions here are opaque, as an API server may issue
// them: which copy is newer must follow from the watch's order of events, never from comparing
// the versions.
#include "cluster/cluster_cache.h"

#include <gtest/gtest.h>

namespace gpugate::cluster {
namespace {

using nlohmann::json;

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
        config, settings, "gpugate", [] { return Clock::now(); }, nullptr);
    InformerHandlers handlers = cache.RecordHandlers();
    for (size_t i = 0; i < c.steps.size(); ++i) {
      const Step& step = c.steps[i];
      switch (step.kind) {
        case Step::kList:
          handlers.onList({RecordAt(step.rv, step.gpus)});
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

}  // namespace
}  // namespace gpugate::cluster
