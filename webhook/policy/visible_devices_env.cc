// visible-devices-env: the NVIDIA container runtime exposes whatever GPUs the environment
// variable NVIDIA_VISIBLE_DEVICES names, whether or not the device plugin allocated them. A pod
// that sets it ("all", "0,1", a UUID) uses GPUs no scheduler or quota counted, so this applies to
// pods that request no GPU at all: that is exactly the bypass. "none", "void" and "" expose none.
#include "common/strings.h"
#include "policy/checks.h"

namespace gpugate::policy {
namespace {

bool ExposesNoDevice(std::string_view value) {
  return value.empty() || value == "none" || value == "void";
}

}  // namespace

void CheckVisibleDevicesEnv(const ManagedPod& managed, std::vector<Violation>& out) {
  const PodSpecView& pod = managed.spec();
  const Settings& settings = managed.settings();
  if (!settings.denyVisibleDevicesEnv) return;
  for (const ContainerView& c : pod.containers) {
    for (const EnvVarView& env : c.env) {
      if (env.name != kNvidiaVisibleDevices) continue;
      std::string head = pod.ContainerLabel(c) + ": env " + std::string(kNvidiaVisibleDevices);
      if (env.fromSource) {
        out.push_back({kVisibleDevicesEnvRule,
                       head + " set from valueFrom cannot be checked and bypasses the GPU device "
                              "plugin",
                       head});
      } else if (!ExposesNoDevice(env.value)) {
        out.push_back({kVisibleDevicesEnvRule,
                       head + " " + JsonQuote(env.value) +
                           " bypasses the GPU device plugin; request a managed GPU resource "
                           "instead",
                       head});
      }
    }
  }
}

}  // namespace gpugate::policy
