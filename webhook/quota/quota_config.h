// The quota section of the configuration file:
//
//   quota:
//     stateFile: /var/lib/gpugate/ledger   # "" (default): memory only
//     namespaces:
//       team-a: {nvidia.com/gpu: 4, tencent.com/vcuda-core: 400, gpu-equivalents: 6}
//     weights:
//       gpu-equivalents: {nvidia.com/gpu: 1, tencent.com/vcuda-core: 0.01, amd.com/gpu: 1}
#pragma once

#include <map>
#include <string>

#include "quota/amounts.h"

namespace gpugate::quota {

struct QuotaConfig {
  std::string stateFile;  // the ledger's journal; empty: memory only
  // namespace -> hard limits (milli-units), by resource name or weighted-figure name.
  std::map<std::string, Amounts, std::less<>> limits;
  // weighted-figure name -> (managed resource name -> milli-units of the figure per unit).
  std::map<std::string, Amounts, std::less<>> weights;
};

}  // namespace gpugate::quota
