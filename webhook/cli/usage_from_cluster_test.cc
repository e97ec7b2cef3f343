#include "cli/usage_from_cluster.h"

#include <gtest/gtest.h>

#include "common/rfc3339.h"
#include "standin/standin.h"
#include "usage/civil_date.h"
#include "usage/testing.h"

namespace gpugate::cli {
namespace {

using nlohmann::json;
using usage::testing::Utc;

const std::chrono::sys_seconds kNow = Utc(2026, 11, 27, 12);

json Book(const std::string& ns, const std::string& zone = "UTC") {
  return {{"version", 1},
          {"timeZone", zone},
          {"keys", json::array({{{"namespace", ns},
                                 {"resource", "nvidia.com/gpu"},
                                 {"model", "a100"},
                                 {"from", "2026-11-02"},
                                 {"days", {7'200'000, 0, 3'600'000}}}})}};
}

json Charge(const std::string& uid, std::optional<std::string> started) {
  json c = {{"uid", uid},
            {"admitted", "2026-11-27T08:00:00Z"},
            {"amounts", {{"nvidia.com/gpu", "2"}, {"nvidia.com/gpu@a100", "2"}}}};
  if (started) c["started"] = *started;
  return c;
}

json GpuQuota(const std::string& ns, json status) {
  return {{"apiVersion", "gpugate.io/v1alpha1"},
          {"kind", "GPUQuota"},
          {"metadata", {{"name", "gpugate"}, {"namespace", ns}}},
          {"status", std::move(status)}};
}

// "zone=UTC books=1 running=team-a/nvidia.com/gpu@a100 2000m 2026-11-27T10:00:00.000Z..."
// or "error: ...".
std::string Read(const json& object) {
  ClusterBooks books;
  if (Status ok = AddRecordedUsage(object, kNow, books); !ok) return "error: " + ok.error().message;
  std::string out = "zone=" + books.zone.name() + " books=" + std::to_string(books.books.size());
  for (const usage::Accrual& a : books.running) {
    out += " running=" + a.key.ns + "/" + a.key.resource + "@" + a.key.model + " " +
           std::to_string(a.milli) + "m " + FormatRfc3339(a.held.from) + ".." +
           FormatRfc3339(a.held.to);
  }
  return out;
}

TEST(UsageFromCluster, GpuQuotaStatusAsBooksAndRunningPods) {
  const struct {
    const char* name;
    json object;
    std::string want;
  } kCases[] = {
      {"book and a started charge",
       GpuQuota("team-a", {{"usage", Book("team-a", "Europe/Berlin")},
                           {"charges",
                            {{"train", {Charge("u1", "2026-11-27T10:00:00Z")}},
                             {"queued", {Charge("u2", std::nullopt)}}}}}),
       "zone=Europe/Berlin books=1 running=team-a/nvidia.com/gpu@a100 2000m "
       "2026-11-27T10:00:00.000Z..2026-11-27T12:00:00.000Z"},
      {"no usage yet", GpuQuota("team-b", {{"charges", json::object()}}), "zone=UTC books=0"},
      {"started after now",
       GpuQuota("team-b", {{"charges", {{"p", {Charge("u", "2026-11-27T13:00:00Z")}}}}}),
       "zone=UTC books=0"},
      {"usage not an object", GpuQuota("team-c", {{"usage", "{}"}}),
       "error: GPUQuota team-c/gpugate: status.usage: must be an object"},
      {"no zone", GpuQuota("team-c", {{"usage", json::object({{"version", 1}})}}),
       "error: GPUQuota team-c/gpugate: status.usage: timeZone: missing, or not a string"},
      {"bad started", GpuQuota("team-d", {{"charges", {{"train", {Charge("u1", "yesterday")}}}}}),
       "error: GPUQuota team-d/gpugate: status.charges.train[0].started: \"yesterday\": want an "
       "RFC "
       "3339 time"},
  };
  for (const auto& c : kCases) {
    const std::string got = Read(c.object);
    EXPECT_TRUE(got.starts_with(c.want)) << c.name << ": " << got;
  }
  // A book the codec refuses: its reason follows the field.
  json negative = Book("team-e");
  negative["keys"][0]["days"] = {-1};
  EXPECT_TRUE(Read(GpuQuota("team-e", {{"usage", negative}}))
                  .starts_with("error: GPUQuota team-e/gpugate: status.usage: "));
  EXPECT_TRUE(Read(GpuQuota("team-e", {{"usage", Book("team-e", "Mars/Olympus")}}))
                  .starts_with("error: GPUQuota team-e/gpugate: status.usage: timeZone: "));
}

// Every object of a paged list, through the API client.
TEST(UsageFromCluster, ListsEveryGpuQuotaPageByPage) {
  testing::StandInApiServer api({});
  for (const char* ns : {"team-a", "team-b", "team-c"}) {
    api.Create("/apis/gpugate.io/v1alpha1/namespaces/" + std::string(ns) + "/gpuquotas",
               GpuQuota(ns, {{"usage", Book(ns)}}));
  }
  auto client = api.InMemoryClient();
  Result<ClusterBooks> books = ReadClusterBooks(*client, kNow);
  ASSERT_TRUE(books.has_value()) << books.error().message;
  ASSERT_EQ(books->books.size(), 3u);
  EXPECT_EQ(books->books[2].keys().begin()->first.ns, "team-c");
}

}  // namespace
}  // namespace gpugate::cli
