#include "cli/usage_from_cluster.h"

#include <string>

#include "cluster/gpu_quota_record.h"
#include "cluster/kube_object.h"
#include "cluster/list_pager.h"
#include "common/strings.h"
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

// When the charge of `uid` under pod `pod` started, from status.charges; nullopt when it has
// not (no `started`).
Result<std::optional<WallClock::time_point>> StartedOf(const json& charges, const std::string& pod,
                                                       const std::string& uid) {
  auto list = charges.find(pod);
  if (list == charges.end() || !list->is_array()) return std::nullopt;
  for (size_t i = 0; i < list->size(); ++i) {
    const json& entry = (*list)[i];
    if (!entry.is_object() || entry.value("uid", "") != uid || !entry.contains("started")) {
      continue;
    }
    const std::string where = "status.charges[" + JsonQuote(pod) + "][" + std::to_string(i) + "]";
    if (!entry["started"].is_string()) return Fail(where + ".started: must be a string");
    Result<WallClock::time_point> at = ParseRfc3339(entry["started"].get<std::string>());
    if (!at) return Fail(where + ".started: " + at.error().message);
    return at;
  }
  return std::nullopt;
}

}  // namespace

Status AddRecordedUsage(const json& object, std::chrono::sys_seconds now, ClusterBooks& into) {
  const cluster::GpuQuotaRecord record = cluster::DecodeGpuQuota(object);
  const std::string name = object.contains("metadata") && object["metadata"].is_object()
                               ? object["metadata"].value("name", "")
                               : "";
  const std::string what = "GPUQuota " + record.ns + "/" + name + ": ";
  if (!record.problem.empty()) return Fail(what + record.problem);
  const json* status = object.contains("status") ? &object["status"] : nullptr;
  if (status && status->is_object() && status->contains("usage")) {
    Result<usage::UsageBook> book = DecodeStatusBook((*status)["usage"]);
    if (!book) return Fail(what + "status.usage: " + book.error().message);
    if (into.books.empty()) into.zone = book->zone();
    into.books.push_back(std::move(*book));
  }
  const json& charges = status && status->is_object() && status->contains("charges")
                            ? (*status)["charges"]
                            : json::object();
  for (const auto& [pod, list] : record.charges) {
    for (const cluster::RecordedCharge& charge : list) {
      auto started = StartedOf(charges, pod, charge.uid);
      if (!started) return Fail(what + started.error().message);
      if (!*started) continue;
      const auto from = std::chrono::floor<std::chrono::seconds>(**started);
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
