#include "cli/usage_from_cluster.h"

#include <string>

#include "cluster/gpu_quota_record.h"
#include "cluster/kube_object.h"
#include "cluster/list_pager.h"
#include "usage/accruals.h"
#include "usage/book_codec.h"

namespace gpugate::cli {
namespace {

using nlohmann::json;

// The book in status.usage, in the zone it names.
Result<usage::UsageBook> DecodeStatusBook(const json& stored) {
  if (!stored.is_object()) return Fail("must be an object");
  auto zoneName = stored.find("timeZone");
  if (zoneName == stored.end() || !zoneName->is_string()) {
    return Fail("timeZone: missing, or not a string");
  }
  Result<TimeZone> zone = TimeZone::Load(zoneName->get<std::string>());
  if (!zone) return Fail("timeZone: " + zone.error().message);
  Result<usage::UsageBook> book = usage::DecodeBook(stored.dump(), *zone, usage::BookOptions{});
  if (!book) return std::unexpected(book.error());
  return book;
}

}  // namespace

Status AddRecordedUsage(const json& object, std::chrono::sys_seconds now, ClusterBooks& into) {
  const cluster::GpuQuotaRecord record = cluster::DecodeGpuQuota(object);
  const std::string name = object.contains("metadata") && object["metadata"].is_object()
                               ? object["metadata"].value("name", "")
                               : "";
  const std::string what = "GPUQuota " + record.ns + "/" + name + ": ";
  if (!record.problem.empty()) return Fail(what + record.problem);
  if (!record.usage.is_null()) {
    Result<usage::UsageBook> book = DecodeStatusBook(record.usage);
    if (!book) return Fail(what + "status.usage: " + book.error().message);
    if (into.books.empty()) into.zone = book->zone();
    into.books.push_back(std::move(*book));
  }
  // Running pods: each started charge, from its start up to now.
  for (const auto& [pod, list] : record.charges) {
    for (const cluster::RecordedCharge& charge : list) {
      if (!charge.started) continue;
      const auto from = std::chrono::floor<std::chrono::seconds>(*charge.started);
      if (from >= now) continue;
      auto accruals = usage::Accruals(record.ns, charge.amounts, {from, now});
      into.running.insert(into.running.end(), accruals.begin(), accruals.end());
    }
  }
  return {};
}

Result<ClusterBooks> ReadClusterBooks(cluster::ApiClient& client, std::chrono::sys_seconds now) {
  const std::string path(cluster::kGpuQuotaCollection);
  ClusterBooks out;
  std::optional<Error> bad;
  auto listed = cluster::ListPaged(client, path, [&] {
    return cluster::CollectList([&](std::vector<json> items) {
      for (const json& item : items) {
        if (bad) return;
        if (Status added = AddRecordedUsage(item, now, out); !added) bad = added.error();
      }
    });
  });
  if (!listed) return Fail("list " + path + ": " + listed.error().message);
  if (bad) return std::unexpected(*bad);
  return out;
}

}  // namespace gpugate::cli
