// Handler::MayBlock, the predicate that sends a review to a thread that may block: a table of
// requests with the answer each must get from a ledger that may wait, and its contract checked
// on every row: where it says false, Validate never calls the ledger.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "admission/handler.h"
#include "config/config.h"
#include "quota/ledger.h"
#include "review/admission_review.h"

namespace gpugate::admission {
namespace {

using nlohmann::json;

// A ledger that counts the calls which may wait, and answers them from a real one.
class CountingLedger : public quota::Accounting {
 public:
  explicit CountingLedger(quota::Accounting& inner) : inner_(inner) {}
  Result<quota::ReserveResult> Reserve(const quota::ReserveRequest& request) override {
    ++calls;
    return inner_.Reserve(request);
  }
  Result<bool> Release(const quota::PodRef& pod, quota::Deadline deadline) override {
    ++calls;
    return inner_.Release(pod, deadline);
  }
  Result<bool> ReleaseAt(const quota::PodRef& pod, WallClock::time_point at,
                         quota::Deadline deadline) override {
    ++calls;
    return inner_.ReleaseAt(pod, at, deadline);
  }
  Result<bool> RecordStart(const quota::PodRef& pod, WallClock::time_point at,
                           quota::Deadline deadline) override {
    ++calls;
    return inner_.RecordStart(pod, at, deadline);
  }
  bool AwaitsStart(const quota::PodRef& pod) const override { return inner_.AwaitsStart(pod); }
  std::vector<quota::NamespaceUsage> Usage(std::string_view onlyNs) const override {
    return inner_.Usage(onlyNs);
  }
  const quota::QuotaConfig& config() const override { return inner_.config(); }
  // As a ledger with a journal says.
  bool MayWait() const override { return true; }

  int calls = 0;

 private:
  quota::Accounting& inner_;
};

struct Row {
  const char* name;
  const char* operation;
  const char* ns = "team-a";
  const char* gpu = "1";  // nullptr: the pod asks for no GPU
  const char* overhead = nullptr;  // spec.overhead's nvidia.com/gpu (a RuntimeClass's), if any
  const char* subResource = "";
  const char* phase = "Running";
  bool dryRun = false;
  const char* resource = "pods";
  const char* startTime = nullptr;  // status.startTime
  // The ledger before the review: the pod charged, and its start already recorded.
  bool charged = false;
  bool started = false;
  bool mayBlock = false;
};

json Review(const Row& r) {
  json container = {{"name", "trainer"}, {"image", "cuda:12"}};
  if (r.gpu) container["resources"] = {{"limits", {{"nvidia.com/gpu", r.gpu}}}};
  const json pod0 = {{"apiVersion", "v1"},
                     {"kind", "Pod"},
                     {"metadata", {{"name", "p"}, {"namespace", r.ns}, {"uid", "uid-p"}}},
                     {"spec", {{"containers", json::array({container})}}},
                     {"status", {{"phase", r.phase}}}};
  json pod = pod0;
  if (r.overhead) pod["spec"]["overhead"] = {{"nvidia.com/gpu", r.overhead}, {"cpu", "250m"}};
  if (r.startTime) pod["status"]["startTime"] = r.startTime;
  const std::string op = r.operation;
  json request = {{"uid", "req"},
                  {"kind", {{"group", ""}, {"version", "v1"}, {"kind", "Pod"}}},
                  {"resource", {{"group", ""}, {"version", "v1"}, {"resource", r.resource}}},
                  {"name", "p"},
                  {"namespace", r.ns},
                  {"operation", op},
                  {"dryRun", r.dryRun}};
  if (op != "DELETE") request["object"] = pod;
  if (op != "CREATE") request["oldObject"] = pod;
  if (*r.subResource) request["subResource"] = r.subResource;
  return {{"apiVersion", "admission.k8s.io/v1"}, {"kind", "AdmissionReview"}, {"request", request}};
}

const Row kRows[] = {
    {.name = "GPU pod created", .operation = "CREATE", .mayBlock = true},
    {.name = "GPU pod created in a dry run",
     .operation = "CREATE",
     .dryRun = true,
     .mayBlock = true},
    {.name = "GPU pod created, over its limit",
     .operation = "CREATE",
     .gpu = "3",
     .mayBlock = true},
    {.name = "GPU pod created in a namespace without a limit",
     .operation = "CREATE",
     .ns = "team-b",
     .mayBlock = true},
    {.name = "pod without a GPU created", .operation = "CREATE", .gpu = nullptr},
    // Its RuntimeClass's overhead holds a GPU: charged for it, though no container asks for one.
    {.name = "pod whose only GPU is its overhead created",
     .operation = "CREATE",
     .gpu = nullptr,
     .overhead = "1",
     .mayBlock = true},
    {.name = "pod whose overhead holds no managed resource created",
     .operation = "CREATE",
     .gpu = nullptr,
     .overhead = "0"},
    {.name = "GPU pod created in an exempt namespace", .operation = "CREATE", .ns = "kube-system"},
    {.name = "pods/binding created", .operation = "CREATE", .subResource = "binding"},
    {.name = "pod deleted", .operation = "DELETE", .mayBlock = true},
    {.name = "pod deleted in a dry run", .operation = "DELETE", .dryRun = true},
    {.name = "pod updated", .operation = "UPDATE"},
    {.name = "status of a running pod", .operation = "UPDATE", .subResource = "status"},
    {.name = "status of a succeeded pod",
     .operation = "UPDATE",
     .subResource = "status",
     .phase = "Succeeded",
     .mayBlock = true},
    {.name = "status of a failed pod in a dry run",
     .operation = "UPDATE",
     .subResource = "status",
     .phase = "Failed",
     .dryRun = true},
    {.name = "pod exec", .operation = "CONNECT", .subResource = "exec"},
    // The start edge: written once per charge, so only the first status with a startTime.
    {.name = "first status with a startTime of a charged pod",
     .operation = "UPDATE",
     .subResource = "status",
     .startTime = "2026-11-27T20:00:00Z",
     .charged = true,
     .mayBlock = true},
    {.name = "status with a startTime of a pod whose start is recorded",
     .operation = "UPDATE",
     .subResource = "status",
     .startTime = "2026-11-27T20:00:00Z",
     .charged = true,
     .started = true},
    {.name = "status with a startTime of a pod without a charge",
     .operation = "UPDATE",
     .subResource = "status",
     .startTime = "2026-11-27T20:00:00Z"},
    {.name = "status without a startTime of a charged pod",
     .operation = "UPDATE",
     .subResource = "status",
     .phase = "Pending",
     .charged = true},
    {.name = "status with a startTime of a charged pod in a dry run",
     .operation = "UPDATE",
     .subResource = "status",
     .dryRun = true,
     .startTime = "2026-11-27T20:00:00Z",
     .charged = true},
};

TEST(HandlerMayBlock, OnlyAReviewThatReachesTheLedgerLeavesTheServingThread) {
  auto config =
      config::ParseConfig("quota: {namespaces: {team-a: {nvidia.com/gpu: 2}}}\n", "gpugate.yaml");
  ASSERT_TRUE(config) << config.error().message;
  for (const Row& r : kRows) {
    quota::Ledger ledger(config->quota, nullptr);
    ASSERT_TRUE(ledger.Open());
    const quota::PodRef pod{"team-a", "p", "uid-p"};
    if (r.charged) {
      ASSERT_TRUE(ledger.Reserve(pod, {{"nvidia.com/gpu", 1000}}, false));
    }
    if (r.started) {
      ASSERT_TRUE(ledger.RecordStart(pod, WallClock::now(), kNoDeadline));
    }
    CountingLedger counting(ledger);
    const Handler handler(config->policy, &counting);
    auto request = review::DecodeReview(Review(r).dump());
    ASSERT_TRUE(request) << r.name << ": " << request.error().message;
    EXPECT_EQ(handler.MayBlock(*request), r.mayBlock) << r.name;
    handler.Validate(*request);
    if (!r.mayBlock) {
      EXPECT_EQ(counting.calls, 0) << r.name << ": the ledger was called";
    }
    if (r.startTime && r.charged) {  // true exactly when a start is written
      const std::vector<quota::Charge> charges = ledger.Charges();
      ASSERT_EQ(charges.size(), 1u) << r.name;
      EXPECT_EQ(charges[0].started.has_value() && !r.started, r.mayBlock) << r.name;
    }
  }
}

TEST(HandlerMayBlock, NothingBlocksOnALedgerWithoutAJournal) {
  auto config =
      config::ParseConfig("quota: {namespaces: {team-a: {nvidia.com/gpu: 2}}}\n", "gpugate.yaml");
  ASSERT_TRUE(config) << config.error().message;
  quota::Ledger ledger(config->quota, nullptr);
  ASSERT_TRUE(ledger.Open());
  const Handler handler(config->policy, &ledger);
  for (const Row& r : kRows) {
    auto request = review::DecodeReview(Review(r).dump());
    ASSERT_TRUE(request) << r.name << ": " << request.error().message;
    EXPECT_FALSE(handler.MayBlock(*request)) << r.name;
  }
}

TEST(HandlerMayBlock, NothingBlocksWithoutALedger) {
  auto config = config::ParseConfig("", "gpugate.yaml");
  ASSERT_TRUE(config) << config.error().message;
  const Handler handler(config->policy, nullptr);
  auto request = review::DecodeReview(Review({.name = "", .operation = "CREATE"}).dump());
  ASSERT_TRUE(request) << request.error().message;
  EXPECT_FALSE(handler.MayBlock(*request));
}

}  // namespace
}  // namespace gpugate::admission
