// Test support: finding and running a kubectl whose built-in kustomize can render manifests/
// (manifests_test.cc). The manifests use the kustomization field `labels:`, which kustomize
// v4.1.0 added: kubectl 1.21 (kustomize v4.0.5) and Debian bookworm's 1.20 (v2.0.3) refuse them,
// kubectl 1.22 (v4.2.0) renders them byte for byte as kubectl 1.32 (v5.5.0) does.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace gpugate::testing {

struct Kubectl {
  std::string path;     // an executable file, run without a PATH search
  std::string version;  // "v1.31.9", for messages
};

// Whether the kubectl that printed `json` (its `kubectl version --client -o json`) can render the
// manifests: its version, or what it is instead ("v1.21.0, whose kustomize predates v4.1.0").
// kubectl reports kustomizeVersion from 1.24 on; for an older one its minor version decides.
Result<std::string> CheckKubectlVersion(std::string_view json);

// The kubectl to render with: $GPUGATE_KUBECTL when it is set (that one alone, so a run can pin
// it), else the first of `kubectl` on PATH and <repo>/.tools/bin/kubectl (`make kubectl`) that
// passes CheckKubectlVersion. When none does, the error is one line for a skipped test: what was
// found and how to get a usable kubectl. Decided on the first call, then cached; not thread-safe.
const Result<Kubectl>& UsableKubectl();

// Runs `PATH ARGS...`: its stdout, or an error saying how it ended, with its stderr.
Result<std::string> RunKubectl(const std::string& path, const std::vector<std::string>& args);

}  // namespace gpugate::testing
