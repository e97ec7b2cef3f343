// `gpugate quota --kubeconfig`: the usage recorded in the cluster's GPUQuota objects, read
// straight from the Kubernetes API (no gpugate server involved).
#pragma once

#include <string>
#include <vector>

#include "common/result.h"
#include "quota/accounting.h"

namespace gpugate::cli {

// Lists GPUQuota objects (in `ns`, or every namespace when empty) with the kubeconfig's
// credentials. Errors name the file or the API call.
Result<std::vector<quota::NamespaceUsage>> UsageFromCluster(const std::string& kubeconfig,
                                                            const std::string& context,
                                                            const std::string& ns);

}  // namespace gpugate::cli
