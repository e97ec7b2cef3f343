// The GPUQuota object (gpugate.io/v1alpha1): one per namespace, the cluster ledger's record of
// every charge in it. Its status is the state; used, hard and the summaries are derived and
// rewritten on every write so `kubectl get gpuquotas -A` can show them:
//
//   apiVersion: gpugate.io/v1alpha1
//   kind: GPUQuota
//   metadata: {name: gpugate, namespace: team-a, resourceVersion: "..."}
//   status:
//     charges:
//       trainer-0:   # pod name -> one entry per uid charged under it (see quota/ledger.h)
//         - {uid: 6f1c..., admitted: "2024-05-01T12:00:00.250Z", amounts: {nvidia.com/gpu: "1"},
//            started: "2024-05-01T12:00:07Z"}   # the pod's status.startTime, once the watch shows
//            it
//     usage: {version: 1, timeZone: UTC, keys: [...]}  # the namespace's usage book, absent while
//     empty used: {nvidia.com/gpu: "1"} hard: {nvidia.com/gpu: "4"} usedSummary: nvidia.com/gpu=1
//     hardSummary: nvidia.com/gpu=4
//
// Amounts are decimal strings (quota::FormatMilli / ParseMilli), exact to a thousandth.
// status.usage is usage/book_codec.h's form as a JSON object (EncodeBook's output, parsed), holding
// only this namespace's keys: the GPU-time of its finished pods, accrued in the same guarded write
// that drops their charges (cluster/record_book.h). The record keeps it as stored; only the writes
// that accrue decode it.
#pragma once

#include <chrono>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/kube_object.h"
#include "common/result.h"
#include "common/rfc3339.h"
#include "quota/accounting.h"
#include "quota/amounts.h"

namespace gpugate::cluster {

// The wall clock (common/rfc3339.h): charges carry their admission time, which other replicas
// read, so it is the system clock (replicas agree on it through NTP).
using gpugate::WallClock;

inline constexpr std::string_view kGpuQuotaKind = "GPUQuota";

struct RecordedCharge {
  std::string uid;
  WallClock::time_point admitted;
  quota::Amounts amounts;  // milli-units
  // When the pod started holding its devices (its status.startTime), once the watch has shown
  // it; its usage runs from then. Set once, never changed.
  std::optional<WallClock::time_point> started;

  bool operator==(const RecordedCharge&) const = default;
};

// Pod name -> the charges held under it (one per uid; almost always one).
using ChargeMap = std::map<std::string, std::vector<RecordedCharge>, std::less<>>;

struct GpuQuotaRecord {
  std::string ns;
  // The object as read from the API (metadata with resourceVersion, anything else a user put
  // there); null for a record that does not exist yet. Writes send it back with a new status.
  nlohmann::json object;
  ChargeMap charges;
  // Why status.charges could not be read ("" when it could); `charges` is then empty. Reserve
  // refuses to charge against such a record; the reconciler rebuilds it from the pods.
  std::string problem;
  // status.usage as stored (null when absent): the namespace's usage book, written back as it is
  // unless a write accrues to it.
  nlohmann::json usage;

  bool exists() const { return !object.is_null(); }
  std::string resourceVersion() const;
  bool Holds(std::string_view name, std::string_view uid) const;
  quota::Amounts Used() const;  // the sum of every charge
};

// What GPU-hour usage reads of a record (cluster/cluster_usage.h): its book and charges, without
// the object, which can be a megabyte.
struct RecordUsage {
  std::string ns;
  std::string version;   // the record's resourceVersion
  nlohmann::json usage;  // status.usage as stored; null when absent or left out
  ChargeMap charges;
  bool bookLeftOut = false;  // `usage` was left out: the reader holds this version's book
};
RecordUsage UsageOfRecord(const GpuQuotaRecord& record);

// Reads a GPUQuota object. Never fails: a malformed status is reported in `problem`.
GpuQuotaRecord DecodeGpuQuota(const nlohmann::json& object);

// One entry of status.charges as written.
nlohmann::json EncodeCharge(const RecordedCharge& charge);

// The object to PUT (or POST, for a new record named `name`): `record.object` with its status
// replaced by `record.charges` and the derived used, hard and summaries.
nlohmann::json EncodeGpuQuota(const GpuQuotaRecord& record, std::string_view name,
                              const quota::Amounts& hard);

// The usage a record reports: used from its charges, hard from the status.hard it was last
// written with (what `gpugate quota --kubeconfig` shows without running the ledger).
quota::NamespaceUsage RecordedUsage(const GpuQuotaRecord& record);

// Charges' admission times are written and read as common/rfc3339.h does.
using gpugate::FormatRfc3339;
using gpugate::ParseRfc3339;

}  // namespace gpugate::cluster
