// A Pod's DELETE through the handler, from the golden reviews in tests/testdata/validate/
// (deletion--*): a graceful delete leaves the charge counting until the pod's grace period has
// passed twice over (deletionTimestamp + grace, as ResourceQuota counts it); the kubelet's final
// delete, a forced one, or the delete of a pod never scheduled releases at once.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "admission/handler.h"
#include "config/config.h"
#include "quota/ledger.h"
#include "review/admission_review.h"
#include "test_paths.h"

namespace gpugate::admission {
namespace {

namespace fs = std::filesystem;

std::string Body(const std::string& name) {
  std::ifstream in(fs::path(GPUGATE_SOURCE_DIR) / "tests/testdata/validate" /
                   ("deletion--" + name + ".request.json"));
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

review::AdmissionRequest Request(const std::string& name, bool dryRun = false) {
  auto request = review::DecodeReview(Body(name));
  EXPECT_TRUE(request) << name << ": " << request.error().message;
  if (!request) return {};
  request->dryRun = dryRun;
  return *request;
}

// "team-a/trainer-0{nvidia.com/gpu=2}<2026-11-27T20:02:00.000Z": the ledger's charges.
std::string Charges(const quota::Ledger& ledger) {
  std::string out;
  for (const quota::Charge& c : ledger.Charges()) {
    out += (out.empty() ? "" : " ") + c.pod.ns + "/" + c.pod.name + "{" +
           quota::FormatAmounts(c.amounts) + "}";
    if (c.releaseAt) out += "<" + FormatRfc3339(*c.releaseAt);
  }
  return out;
}

struct Case {
  const char* review;
  bool dryRun;
  const char* reason;   // the decision's reason
  const char* charges;  // the ledger's afterwards
};

// The reviews arrive at 20:00:00; trainer-0 holds 2 GPUs when each is sent.
const Case kCases[] = {
    // gracePeriodSeconds 60: deletionTimestamp 20:01:00, counting until 20:02:00.
    {"graceful-delete-of-a-running-pod-allowed", false, "terminating",
     "team-a/trainer-0{nvidia.com/gpu=2}<2026-11-27T20:02:00.000Z"},
    {"graceful-delete-of-a-running-pod-allowed", true, "dry-run",
     "team-a/trainer-0{nvidia.com/gpu=2}"},
    {"kubelet-final-delete-allowed", false, "released", ""},
    {"unscheduled-pod-delete-allowed", false, "released", ""},
    // An item of a DeleteCollection (deleting a namespace): no request.name, only the old object's.
    {"collection-item-of-an-unscheduled-pod-allowed", false, "released", ""},
};

TEST(HandlerDelete, AGracefulDeleteKeepsTheChargeAndTheFinalOneReleasesIt) {
  auto config =
      config::ParseConfig("quota: {namespaces: {team-a: {nvidia.com/gpu: 4}}}\n", "gpugate.yaml");
  ASSERT_TRUE(config) << config.error().message;
  const WallClock::time_point now = *ParseRfc3339("2026-11-27T20:00:00Z");
  for (const Case& c : kCases) {
    SCOPED_TRACE(std::string(c.review) + (c.dryRun ? " (dry run)" : ""));
    quota::Ledger ledger(config->quota, nullptr, {.clock = [now] { return now; }});
    ASSERT_TRUE(ledger.Open());
    ASSERT_TRUE(ledger.Reserve({"team-a", "trainer-0", "7c1f0a52-5d9e-4a8b-9a63-2f4b8e1d0c11"},
                               {{"nvidia.com/gpu", 2000}}, false));
    const Handler handler(config->policy, &ledger);
    review::Decision decision = handler.Validate(Request(c.review, c.dryRun));
    EXPECT_TRUE(decision.allowed);
    EXPECT_EQ(decision.reason, c.reason);
    EXPECT_EQ(Charges(ledger), c.charges);
  }
}

// The graceful delete, then the pod's final delete: in between, the namespace is at its limit.
TEST(HandlerDelete, ANamespaceAtItsLimitStaysThereWhileItsPodTerminates) {
  auto config =
      config::ParseConfig("quota: {namespaces: {team-a: {nvidia.com/gpu: 2}}}\n", "gpugate.yaml");
  ASSERT_TRUE(config) << config.error().message;
  WallClock::time_point now = *ParseRfc3339("2026-11-27T20:00:00Z");
  quota::Ledger ledger(config->quota, nullptr, {.clock = [&now] { return now; }});
  ASSERT_TRUE(ledger.Open());
  ASSERT_TRUE(ledger.Reserve({"team-a", "trainer-0", "7c1f0a52-5d9e-4a8b-9a63-2f4b8e1d0c11"},
                             {{"nvidia.com/gpu", 2000}}, false));
  const Handler handler(config->policy, &ledger);
  EXPECT_EQ(handler.Validate(Request("graceful-delete-of-a-running-pod-allowed")).reason,
            "terminating");
  const quota::PodRef next{"team-a", "trainer-1", "uid-1"};
  auto refused = ledger.Reserve(next, {{"nvidia.com/gpu", 1000}}, false);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->message,
            "exceeded quota: team-a, requested: nvidia.com/gpu=1, used: nvidia.com/gpu=2, "
            "limited: nvidia.com/gpu=2");
  now = *ParseRfc3339("2026-11-27T20:00:45Z");
  EXPECT_EQ(handler.Validate(Request("kubelet-final-delete-allowed")).reason, "released");
  auto admitted = ledger.Reserve(next, {{"nvidia.com/gpu", 1000}}, false);
  ASSERT_TRUE(admitted);
  EXPECT_EQ(admitted->outcome, quota::ReserveOutcome::kCharged);
}

}  // namespace
}  // namespace gpugate::admission
