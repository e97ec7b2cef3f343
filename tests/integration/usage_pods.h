// Pods run through /validate reviews as the API server would send them, for the usage tests
// (usage_cli_test.cc, quota_spend_test.cc): the real server in local mode sees a pod admitted,
// started by the kubelet's status update and deleted, and accrues its GPU-hours.
#pragma once

#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>

#include "common/rfc3339.h"
#include "gpugate_process.h"
#include "review_builder.h"

namespace gpugate::testing {

// Pod `name` in `ns` asking for `gpus` GPUs, with uid "uid-<name>".
inline nlohmann::json UsagePod(const std::string& ns, const std::string& name, int gpus) {
  nlohmann::json pod =
      GpuPod(name, nlohmann::json::array({{{"nvidia.com/gpu", std::to_string(gpus)}}}));
  pod["metadata"]["namespace"] = ns;
  pod["metadata"]["uid"] = "uid-" + name;
  return pod;
}

// Sends `review` to /validate; fails the test unless it is allowed.
inline void ExpectAllowed(const GpugateServer& server, const nlohmann::json& review) {
  auto res = server.Client()->Post("/validate", review.dump(), "application/json");
  ASSERT_TRUE(res && res->status == 200);
  EXPECT_TRUE(nlohmann::json::parse(res->body)["response"]["allowed"].get<bool>()) << res->body;
}

// Pod `name` in `ns` holding `gpus` GPUs, admitted.
inline void AdmitUsagePod(const GpugateServer& server, const std::string& ns,
                          const std::string& name, int gpus) {
  ExpectAllowed(server, MakeReview(UsagePod(ns, name, gpus), {.ns = ns, .uid = "create-" + name}));
}

// Pod `name` in `ns` holding `gpus` GPUs: admitted, started at `from` (the kubelet's status
// update) and deleted so that it stops counting at `to` (a DELETE of a pod whose deletion began
// 30 s before `to`, with a 30 s grace: the API server keeps the pod until then).
inline void RunUsagePod(const GpugateServer& server, const std::string& ns, const std::string& name,
                        int gpus, std::chrono::sys_seconds from, std::chrono::sys_seconds to) {
  using nlohmann::json;
  const json pod = UsagePod(ns, name, gpus);
  ExpectAllowed(server, MakeReview(pod, {.ns = ns, .uid = "create-" + name}));
  json running = pod;
  running["spec"]["nodeName"] = "gpu-node-1";
  running["status"] = {{"phase", "Running"}, {"startTime", FormatRfc3339(from)}};
  json status = MakeReview(running, {.operation = "UPDATE", .ns = ns, .uid = "status-" + name});
  status["request"]["subResource"] = "status";
  status["request"]["oldObject"] = pod;
  ExpectAllowed(server, status);
  json deleting = running;
  deleting["metadata"]["deletionTimestamp"] = FormatRfc3339(to - std::chrono::seconds(30));
  deleting["metadata"]["deletionGracePeriodSeconds"] = 30;
  json del = MakeReview(nullptr, {.operation = "DELETE", .ns = ns, .uid = "delete-" + name});
  del["request"]["name"] = name;
  del["request"]["oldObject"] = deleting;
  ExpectAllowed(server, del);
}

}  // namespace gpugate::testing
