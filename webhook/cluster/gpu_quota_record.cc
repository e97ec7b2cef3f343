#include "cluster/gpu_quota_record.h"

#include <cstdint>

namespace gpugate::cluster {
namespace {

using nlohmann::json;

Result<quota::Amounts> DecodeAmounts(const json& j, const std::string& where) {
  if (!j.is_object()) return Fail(where + ": must be an object");
  quota::Amounts out;
  for (const auto& [resource, value] : j.items()) {
    if (!value.is_string()) return Fail(where + "." + resource + ": must be a string");
    Result<int64_t> milli = quota::ParseMilli(value.get_ref<const std::string&>());
    if (!milli) return Fail(where + "." + resource + ": " + milli.error().message);
    out[resource] = *milli;
  }
  return out;
}

Result<RecordedCharge> DecodeCharge(const json& j, const std::string& where) {
  if (!j.is_object()) return Fail(where + ": must be an object");
  auto uid = j.find("uid");
  auto admitted = j.find("admitted");
  auto amounts = j.find("amounts");
  if (uid == j.end() || !uid->is_string()) return Fail(where + ".uid: must be a string");
  if (admitted == j.end() || !admitted->is_string()) {
    return Fail(where + ".admitted: must be a string");
  }
  Result<WallClock::time_point> when = ParseRfc3339(admitted->get_ref<const std::string&>());
  if (!when) return Fail(where + ".admitted: " + when.error().message);
  if (amounts == j.end()) return Fail(where + ".amounts: missing");
  Result<quota::Amounts> decoded = DecodeAmounts(*amounts, where + ".amounts");
  if (!decoded) return std::unexpected(decoded.error());
  RecordedCharge charge{uid->get<std::string>(), *when, std::move(*decoded)};
  if (auto started = j.find("started"); started != j.end() && !started->is_null()) {
    if (!started->is_string()) return Fail(where + ".started: must be a string");
    Result<WallClock::time_point> at = ParseRfc3339(started->get_ref<const std::string&>());
    if (!at) return Fail(where + ".started: " + at.error().message);
    charge.started = *at;
  }
  return charge;
}

Result<ChargeMap> DecodeCharges(const json& object) {
  ChargeMap out;
  auto status = object.find("status");
  if (status == object.end() || status->is_null()) return out;
  if (!status->is_object()) return Fail("status: must be an object");
  auto charges = status->find("charges");
  if (charges == status->end() || charges->is_null()) return out;
  if (!charges->is_object()) return Fail("status.charges: must be an object");
  for (const auto& [name, list] : charges->items()) {
    std::string where = "status.charges." + name;
    if (!list.is_array()) return Fail(where + ": must be a list");
    for (size_t i = 0; i < list.size(); ++i) {
      Result<RecordedCharge> charge = DecodeCharge(list[i], where + "[" + std::to_string(i) + "]");
      if (!charge) return std::unexpected(charge.error());
      out[name].push_back(std::move(*charge));
    }
  }
  return out;
}

json EncodeAmounts(const quota::Amounts& amounts) {
  json out = json::object();
  for (const auto& [resource, milli] : amounts) out[resource] = quota::FormatMilli(milli);
  return out;
}

// "nvidia.com/gpu=2,gpu-equivalents=1.5"; unlike quota::FormatAmounts it keeps zeros, because a
// hard limit of 0 is a limit.
std::string Summary(const quota::Amounts& amounts) {
  std::string out;
  for (const auto& [resource, milli] : amounts) {
    if (!out.empty()) out += ',';
    out += resource + "=" + quota::FormatMilli(milli);
  }
  return out;
}

}  // namespace

json EncodeCharge(const RecordedCharge& charge) {
  json out = {{"uid", charge.uid},
              {"admitted", FormatRfc3339(charge.admitted)},
              {"amounts", EncodeAmounts(charge.amounts)}};
  if (charge.started) out["started"] = FormatRfc3339(*charge.started);
  return out;
}

std::string GpuQuotaRecord::resourceVersion() const {
  return StringAt(object, {"metadata", "resourceVersion"});
}

bool GpuQuotaRecord::Holds(std::string_view name, std::string_view uid) const {
  auto it = charges.find(name);
  if (it == charges.end()) return false;
  for (const RecordedCharge& c : it->second) {
    if (c.uid == uid) return true;
  }
  return false;
}

quota::Amounts GpuQuotaRecord::Used() const {
  quota::Amounts used;
  for (const auto& [name, list] : charges) {
    for (const RecordedCharge& c : list) {
      for (const auto& [resource, milli] : c.amounts) {
        int64_t& total = used[resource];
        // Saturate, as the local ledger does: an absurd charge never wraps into a small one.
        if (__builtin_add_overflow(total, milli, &total)) total = INT64_MAX;
      }
    }
  }
  return used;
}

RecordUsage UsageOfRecord(const GpuQuotaRecord& record) {
  return {record.ns, record.resourceVersion(), record.usage, record.charges};
}

GpuQuotaRecord DecodeGpuQuota(const json& object) {
  GpuQuotaRecord record;
  record.object = object;
  record.ns = StringAt(object, {"metadata", "namespace"});
  Result<ChargeMap> charges = DecodeCharges(object);
  if (charges) {
    record.charges = std::move(*charges);
  } else {
    record.problem = charges.error().message;
  }
  if (const json* usage = At(object, {"status", "usage"})) record.usage = *usage;
  return record;
}

json EncodeGpuQuota(const GpuQuotaRecord& record, std::string_view name,
                    const quota::Amounts& hard) {
  json object = record.object;
  if (!object.is_object()) {
    object = json{{"apiVersion", kGpuQuotaApiVersion},
                  {"kind", kGpuQuotaKind},
                  {"metadata", {{"name", name}, {"namespace", record.ns}}}};
  }
  json charges = json::object();
  for (const auto& [pod, list] : record.charges) {
    json entries = json::array();
    for (const RecordedCharge& c : list) entries.push_back(EncodeCharge(c));
    if (!entries.empty()) charges[pod] = std::move(entries);
  }
  quota::Amounts used = record.Used();
  object["status"] = {{"charges", std::move(charges)},
                      {"used", EncodeAmounts(used)},
                      {"hard", EncodeAmounts(hard)},
                      {"usedSummary", Summary(used)},
                      {"hardSummary", Summary(hard)}};
  if (!record.usage.is_null()) object["status"]["usage"] = record.usage;
  return object;
}

quota::NamespaceUsage RecordedUsage(const GpuQuotaRecord& record) {
  quota::NamespaceUsage usage{record.ns, {}};
  const nlohmann::json* hard = At(record.object, {"status", "hard"});
  if (hard && hard->is_object()) {
    for (const auto& [resource, value] : hard->items()) {
      if (!value.is_string()) continue;
      if (auto milli = quota::ParseMilli(value.get<std::string>())) {
        usage.resources[resource].hard = *milli;
      }
    }
  }
  for (const auto& [resource, milli] : record.Used()) usage.resources[resource].used = milli;
  return usage;
}

}  // namespace gpugate::cluster
