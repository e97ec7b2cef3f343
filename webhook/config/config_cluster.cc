// The cluster section: how gpugate reaches the Kubernetes API in cluster mode.
#include "config/config_sections.h"

namespace gpugate::config {
namespace {

Status ReadSeconds(const Cursor& value, int64_t& out) {
  int64_t seconds = 0;
  if (auto st = value.ReadPositiveInteger(seconds); !st) return st;
  if (seconds > 3600) return value.FailExpected("a number of seconds from 1 to 3600");
  out = seconds;
  return {};
}

constexpr Field<ClusterConfig> kClusterFields[] = {
    {"enabled", [](const Cursor& v, ClusterConfig& c) { return v.ReadBool(c.enabled); }},
    {"kubeconfig", [](const Cursor& v, ClusterConfig& c) { return v.ReadString(c.kubeconfig); }},
    {"context", [](const Cursor& v, ClusterConfig& c) { return v.ReadString(c.context); }},
    {"reservationGraceSeconds",
     [](const Cursor& v, ClusterConfig& c) { return ReadSeconds(v, c.reservationGraceSeconds); }},
    {"reconcileIntervalSeconds",
     [](const Cursor& v, ClusterConfig& c) { return ReadSeconds(v, c.reconcileIntervalSeconds); }},
};

}  // namespace

Status ReadCluster(const Cursor& value, Config& out) {
  return ReadFields(value, kClusterFields, out.cluster);
}

}  // namespace gpugate::config
