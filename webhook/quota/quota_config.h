// The quota section of the configuration file:
//
//   quota:
//     stateFile: /var/lib/gpugate/ledger   # "" (default): memory only
//     namespaces:
//       team-a: {nvidia.com/gpu: 4, tencent.com/vcuda-core: 400, gpu-equivalents: 6}
//     weights:
//       gpu-equivalents: {nvidia.com/gpu: 1, tencent.com/vcuda-core: 0.01, amd.com/gpu: 1}
//     flavors:
//       a100: {nodeLabels: {nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB}}
//     defaultFlavors: {team-b: a100}
#pragma once

#include <map>
#include <string>
#include <vector>

#include "policy/flavor.h"
#include "quota/amounts.h"

namespace gpugate::quota {

struct QuotaConfig {
  std::string stateFile;  // the ledger's journal; empty: memory only
  // namespace -> hard limits (milli-units), by resource name or weighted-figure name, or either
  // of them for one flavor ("nvidia.com/gpu@a100", policy::FlavoredName).
  std::map<std::string, Amounts, std::less<>> limits;
  // weighted-figure name -> (managed resource name -> milli-units of the figure per unit).
  std::map<std::string, Amounts, std::less<>> weights;
  // The GPU models quota can be set per, in the order configured (docs/quota.md).
  std::vector<policy::Flavor> flavors;
  // namespace -> the flavor /mutate pins its unpinned GPU pods to.
  std::map<std::string, std::string, std::less<>> defaultFlavors;
};

}  // namespace gpugate::quota
