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
