#include "cluster/gpu_quota_record.h"

#include <gtest/gtest.h>

namespace gpugate::cluster {
namespace {

using nlohmann::json;
using quota::kMilli;

WallClock::time_point At(int64_t ms) {
  return WallClock::time_point(std::chrono::milliseconds(ms));
}

TEST(ClusterLedgerRecordTest, EncodesChargesAndDerivedFieldsAndReadsThemBack) {
  GpuQuotaRecord record{.ns = "team-a"};
  record.charges["trainer"] = {
      {"u1", At(1714564800250), {{"nvidia.com/gpu", 2 * kMilli}, {"gpu-equivalents", 2500}}},
      {"u2", At(1714564801000), {{"nvidia.com/gpu", 1 * kMilli}}}};
  json object = EncodeGpuQuota(record, "gpugate", {{"nvidia.com/gpu", 4 * kMilli}, {"x", 0}});

  EXPECT_EQ(object, json::parse(R"({
    "apiVersion": "gpugate.io/v1alpha1", "kind": "GPUQuota",
    "metadata": {"name": "gpugate", "namespace": "team-a"},
    "status": {
      "charges": {"trainer": [
        {"uid": "u1", "admitted": "2024-05-01T12:00:00.250Z",
         "amounts": {"gpu-equivalents": "2.5", "nvidia.com/gpu": "2"}},
        {"uid": "u2", "admitted": "2024-05-01T12:00:01.000Z", "amounts": {"nvidia.com/gpu": "1"}}]},
      "used": {"gpu-equivalents": "2.5", "nvidia.com/gpu": "3"},
      "hard": {"nvidia.com/gpu": "4", "x": "0"},
      "usedSummary": "gpu-equivalents=2.5,nvidia.com/gpu=3",
      "hardSummary": "nvidia.com/gpu=4,x=0"}})"));

  object["metadata"]["resourceVersion"] = "42";
  GpuQuotaRecord read = DecodeGpuQuota(object);
  EXPECT_EQ(read.problem, "");
  EXPECT_EQ(read.ns, "team-a");
  EXPECT_EQ(read.resourceVersion(), "42");
  EXPECT_EQ(read.charges, record.charges);
  EXPECT_TRUE(read.Holds("trainer", "u2"));
  EXPECT_FALSE(read.Holds("trainer", "u3"));
  // A rewrite keeps whatever else the object carries.
  EXPECT_EQ(EncodeGpuQuota(read, "ignored", {})["metadata"]["resourceVersion"], "42");
}

TEST(ClusterLedgerRecordTest, KeepsStartsAndTheUsageBook) {
  GpuQuotaRecord record{.ns = "team-a"};
  record.charges["trainer"] = {
      {"u1", At(1714564800250), {{"nvidia.com/gpu", kMilli}}, At(1714564807000)},
      {"u2", At(1714564801000), {{"nvidia.com/gpu", kMilli}}}};
  record.usage = json::parse(R"({"version":1,"timeZone":"UTC","keys":[]})");
  json object = EncodeGpuQuota(record, "gpugate", {});
  EXPECT_EQ(object["status"]["charges"]["trainer"], json::parse(R"([
      {"uid": "u1", "admitted": "2024-05-01T12:00:00.250Z", "amounts": {"nvidia.com/gpu": "1"},
       "started": "2024-05-01T12:00:07.000Z"},
      {"uid": "u2", "admitted": "2024-05-01T12:00:01.000Z", "amounts": {"nvidia.com/gpu": "1"}}])"));
  EXPECT_EQ(object["status"]["usage"], record.usage);

  GpuQuotaRecord read = DecodeGpuQuota(object);
  EXPECT_EQ(read.problem, "");
  EXPECT_EQ(read.charges, record.charges);
  EXPECT_EQ(read.usage, record.usage);
  // Without a book, status.usage is left out.
  EXPECT_FALSE(
      EncodeGpuQuota(GpuQuotaRecord{.ns = "team-a"}, "gpugate", {})["status"].contains("usage"));
  // A malformed start is a problem like a malformed admission time.
  object["status"]["charges"]["trainer"][0]["started"] = "soon";
  EXPECT_EQ(DecodeGpuQuota(object).problem,
            "status.charges.trainer[0].started: \"soon\": want an RFC 3339 time");
}

TEST(ClusterLedgerRecordTest, ReportsMalformedStatusWithItsPath) {
  struct Case {
    const char* status;
    const char* problem;
  };
  const Case cases[] = {
      {R"(null)", ""},
      {R"({})", ""},
      {R"([])", "status: must be an object"},
      {R"({"charges": []})", "status.charges: must be an object"},
      {R"({"charges": {"p": {}}})", "status.charges.p: must be a list"},
      {R"({"charges": {"p": [{"admitted": "2024-05-01T12:00:00Z", "amounts": {}}]}})",
       "status.charges.p[0].uid: must be a string"},
      {R"({"charges": {"p": [{"uid": "u", "admitted": "yesterday", "amounts": {}}]}})",
       "status.charges.p[0].admitted: \"yesterday\": want an RFC 3339 time"},
      {R"({"charges": {"p": [{"uid": "u", "admitted": "2024-05-01T12:00:00Z",
                              "amounts": {"nvidia.com/gpu": 1}}]}})",
       "status.charges.p[0].amounts.nvidia.com/gpu: must be a string"},
      {R"({"charges": {"p": [{"uid": "u", "admitted": "2024-05-01T12:00:00Z",
                              "amounts": {"nvidia.com/gpu": "-1"}}]}})",
       "status.charges.p[0].amounts.nvidia.com/gpu: \"-1\": want a non-negative decimal such as 4 "
       "or 0.01"},
  };
  for (const Case& c : cases) {
    json object = {{"metadata", {{"name", "gpugate"}, {"namespace", "ns"}}},
                   {"status", json::parse(c.status)}};
    GpuQuotaRecord record = DecodeGpuQuota(object);
    EXPECT_EQ(record.problem, c.problem) << c.status;
    EXPECT_TRUE(record.charges.empty()) << c.status;
  }
}

TEST(ClusterLedgerRecordTest, ParsesRfc3339Forms) {
  struct Case {
    const char* text;
    int64_t ms;  // -1: refused
  };
  const Case cases[] = {
      {"2024-05-01T12:00:00Z", 1714564800000},
      {"2024-05-01T12:00:00.25Z", 1714564800250},
      {"2024-05-01t12:00:00.123456789z", 1714564800123},
      {"2024-05-01T14:00:00+02:00", 1714564800000},
      {"2024-05-01T10:30:00-01:30", 1714564800000},
      {"2024-05-01T12:00:00", -1},
      {"2024-05-01 12:00:00Z", -1},
      {"2024-5-01T12:00:00Z", -1},
      {"", -1},
  };
  for (const Case& c : cases) {
    Result<WallClock::time_point> t = ParseRfc3339(c.text);
    if (c.ms < 0) {
      EXPECT_FALSE(t) << c.text;
      continue;
    }
    ASSERT_TRUE(t) << c.text << ": " << t.error().message;
    EXPECT_EQ(*t, At(c.ms)) << c.text;
  }
  EXPECT_EQ(FormatRfc3339(At(1714564800007)), "2024-05-01T12:00:00.007Z");
}

}  // namespace
}  // namespace gpugate::cluster
