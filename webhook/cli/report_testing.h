// What the tests of both commands' reports (check_report_test.cc, audit_report_test.cc) build
// their findings from: one rule's finding about one Pod, in the webhook's words.
#pragma once

#include <string>
#include <utility>

#include "policy/modes.h"

namespace gpugate::cli::testing {

inline constexpr char kHalfGpuMessage[] =
    "spec.containers[0] \"a\": nvidia.com/gpu limit \"0.5\" must be a whole number of GPUs";

// A whole-units finding about Pod `name` in `ns`, in `mode`: a cli::Finding or cli::AuditFinding,
// which name these fields alike.
template <typename Found>
Found HalfGpuFinding(std::string ns, std::string name, policy::Mode mode) {
  Found f;
  f.ns = std::move(ns);
  f.kind = "Pod";
  f.name = std::move(name);
  f.rule = "whole-units";
  f.message = kHalfGpuMessage;
  f.mode = mode;
  return f;
}

}  // namespace gpugate::cli::testing
