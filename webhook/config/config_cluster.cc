// The cluster section: how gpugate reaches the Kubernetes API in cluster mode.
#include "config/config_sections.h"

namespace gpugate::config {
namespace {

// From 100 ms, so a test can watch a grace period pass; an operator keeps seconds.
Status ReadDuration(const Cursor& value, std::chrono::milliseconds& out) {
  return value.ReadDuration(std::chrono::milliseconds(100), std::chrono::hours(1), out);
}

Status ReadSeconds(const Cursor& value, std::chrono::milliseconds& out) {
  return value.ReadSeconds(1, 3600, out);
}

// From 64 KiB (a few hundred charges) to 3 MiB, kube-apiserver's own bound on a request body;
// past etcd's default 1.5 MiB only where its --max-request-bytes was raised.
Status ReadRecordBound(const Cursor& value, ClusterConfig& c) {
  if (auto st = value.ReadPositiveInteger(c.maxGpuQuotaBytes); !st) return st;
  if (c.maxGpuQuotaBytes < (64 << 10) || c.maxGpuQuotaBytes > (3 << 20)) {
    return value.Fail("must be from 65536 to 3145728 bytes, got " + value.Describe());
  }
  return {};
}

constexpr Field<ClusterConfig> kClusterFields[] = {
    {"enabled", [](const Cursor& v, ClusterConfig& c) { return v.ReadBool(c.enabled); }},
    {"kubeconfig", [](const Cursor& v, ClusterConfig& c) { return v.ReadString(c.kubeconfig); }},
    {"context", [](const Cursor& v, ClusterConfig& c) { return v.ReadString(c.context); }},
    {"reservationGrace",
     [](const Cursor& v, ClusterConfig& c) { return ReadDuration(v, c.reservationGrace); }},
    {"reservationGraceSeconds",
     [](const Cursor& v, ClusterConfig& c) { return ReadSeconds(v, c.reservationGrace); }},
    {"reconcileInterval",
     [](const Cursor& v, ClusterConfig& c) { return ReadDuration(v, c.reconcileInterval); }},
    {"reconcileIntervalSeconds",
     [](const Cursor& v, ClusterConfig& c) { return ReadSeconds(v, c.reconcileInterval); }},
    {"idleConnectionTimeout",
     [](const Cursor& v, ClusterConfig& c) { return ReadDuration(v, c.idleConnectionTimeout); }},
    {"maxGpuQuotaBytes", [](const Cursor& v, ClusterConfig& c) { return ReadRecordBound(v, c); }},
};

}  // namespace

Status ReadCluster(const Cursor& value, Config& out) {
  if (auto st = ReadFields(value, kClusterFields, out.cluster); !st) return st;
  if (auto st = RefuseBothSpellings(value, "reservationGrace", "reservationGraceSeconds"); !st) {
    return st;
  }
  return RefuseBothSpellings(value, "reconcileInterval", "reconcileIntervalSeconds");
}

}  // namespace gpugate::config
