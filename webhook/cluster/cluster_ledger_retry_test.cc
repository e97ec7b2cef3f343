// A charge through the cluster ledger when the API answers 429, 503 or a 500 from etcd first
// (tests/standin/ injects them; reached in memory): retried within the budget, refused when the
// budget runs out, never retried for other 4xx. Time is a fake clock moved by the injected sleep:
// no real waits.
#include <gtest/gtest.h>

#include <mutex>
#include <thread>

#include "cluster/cluster_ledger.h"
#include "quota/testing.h"
#include "standin/standin.h"
#include "support/eventually.h"

namespace gpugate::cluster {
namespace {

using gpugate::testing::StandInApiServer;
using quota::testutil::Outcome;
using std::chrono::milliseconds;
using Failure = StandInApiServer::Failure;

constexpr const char* kToken = "stand-in-token";
constexpr const char* kRecordPath = "/apis/gpugate.io/v1alpha1/namespaces/team-a/gpuquotas/gpugate";

quota::Amounts Gpus(int64_t n) { return {{"nvidia.com/gpu", n * quota::kMilli}}; }

using gpugate::testing::Eventually;
constexpr std::chrono::seconds kWait{10};

struct Case {
  std::string name;
  std::vector<Failure> failures;  // injected in this order
  std::string wantOutcome;        // Outcome() of the second charge
  std::string wantWaits;          // the sleeps between tries, "1000 1000"
  int wantInjected;               // injected answers the stand-in served
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }  // keeps test names short

// Budget 4 s, backoff 100 ms doubling to 1 s, jitter fixed at half: waits of 75, 150, 300, 600,
// 750, 750... ms; Retry-After counts whole seconds, capped at 2. A conflict backs off a random
// share of 5 ms doubling to 100 ms: 2 ms at half.
const std::vector<Case> kCases = {
    {"TooManyRequestsWaitsRetryAfter",
     {{.method = "PUT",
       .status = 429,
       .message = "too many requests, please try again later",
       .reason = "TooManyRequests",
       .retryAfter = "1",
       .count = 2}},
     "charged",
     "1000 1000",
     2},
    {"RetryAfterIsCapped",
     {{.method = "PUT", .status = 429, .reason = "TooManyRequests", .retryAfter = "30"}},
     "charged",
     "2000",
     1},
    {"ServiceUnavailableThenSuccess", {{.method = "PUT", .status = 503}}, "charged", "75", 1},
    {"EtcdLeaderChangedThenSuccess",
     {{.method = "PUT",
       .status = 500,
       .message = "etcdserver: leader changed",
       .reason = "InternalError",
       .count = 2}},
     "charged",
     "75 150",
     2},
    {"TransientGetAfterAConflictIsRetriedToo",
     {{.method = "PUT", .status = 409, .message = "conflict", .reason = "Conflict"},
      {.method = "GET", .pathPrefix = kRecordPath, .status = 503}},
     "charged",
     "2 75",  // the conflict's backoff (half of 5 ms), then the 503's
     2},
    {"PersistentServiceUnavailableRunsOutOfBudget",
     {{.method = "PUT", .status = 503, .message = "apiserver is shutting down", .count = 100}},
     std::string("error: PUT ") + kRecordPath +
         ": HTTP 503: apiserver is shutting down (the same after 8 tries; no time left to retry)",
     "75 150 300 600 750 750 750",
     8},
    {"RetryAfterPastTheBudgetIsNotWaited",
     {{.method = "PUT",
       .status = 429,
       .message = "too many requests",
       .reason = "TooManyRequests",
       .retryAfter = "2",
       .count = 100}},
     std::string("error: PUT ") + kRecordPath +
         ": HTTP 429: too many requests (the same after 2 tries; no time left to retry)",
     "2000",
     2},
    {"BadRequestIsNotRetried",
     {{.method = "PUT", .status = 400, .message = "bad GPUQuota", .reason = "BadRequest"}},
     std::string("error: PUT ") + kRecordPath + ": HTTP 400: bad GPUQuota",
     "",
     1},
    {"ForbiddenIsNotRetried",
     {{.method = "PUT", .status = 403, .message = "RBAC says no", .reason = "Forbidden"}},
     std::string("error: PUT ") + kRecordPath + ": HTTP 403: RBAC says no",
     "",
     1},
    {"EtcdRequestTooLargeIsNotRetried",
     {{.method = "PUT",
       .status = 500,
       .message = "etcdserver: request is too large",
       .reason = "InternalError"}},
     std::string("error: PUT ") + kRecordPath + ": HTTP 500: etcdserver: request is too large",
     "",
     1},
    {"OtherInternalErrorIsNotRetried",
     {{.method = "PUT", .status = 500, .message = "webhook panicked", .reason = "InternalError"}},
     std::string("error: PUT ") + kRecordPath + ": HTTP 500: webhook panicked",
     "",
     1},
};

class ClusterLedgerRetryTest : public ::testing::TestWithParam<Case> {
 protected:
  // The sleeps asked for, in milliseconds, each advancing the fake clock.
  std::string Waits() {
    std::lock_guard lock(mu_);
    return waits_;
  }
  ApiRetry Policy() {
    ApiRetry policy;
    policy.clock = [this] {
      std::lock_guard lock(mu_);
      return now_;
    };
    policy.sleep = [this](milliseconds wait) {
      std::lock_guard lock(mu_);
      now_ += wait;
      waits_ += (waits_.empty() ? "" : " ") + std::to_string(wait.count());
    };
    policy.jitter = [] { return 0.5; };
    return policy;
  }

  std::mutex mu_;
  // Starts at the real steady time: deadlines are steady time points, and the waits that are
  // real (a queued charge's, the client's socket timeouts) compare them with the real clock.
  ApiRetry::SteadyClock::time_point now_ = ApiRetry::SteadyClock::now();  // guarded by mu_
  std::string waits_;                                                     // guarded by mu_
};

TEST_P(ClusterLedgerRetryTest, ChargeAfterTransientAnswers) {
  const Case& c = GetParam();
  StandInApiServer server({.token = kToken});
  std::unique_ptr<ApiClient> client = server.InMemoryClient();
  quota::QuotaConfig config;
  config.limits["team-a"] = Gpus(4);
  ClusterLedger ledger(*client, config, policy::Settings{}, {.retry = Policy()});
  ledger.Start();
  ASSERT_TRUE(Eventually([&] { return ledger.Ready(); }, kWait));
  // A first charge creates the record and the watch shows it, so the second is a PUT.
  ASSERT_EQ(Outcome(ledger.Reserve({"team-a", "p1", "u1"}, Gpus(1), false)), "charged");
  ASSERT_TRUE(Eventually([&] { return !ledger.Usage("team-a").empty(); }, kWait));
  int puts = server.requests("PUT");

  for (const Failure& failure : c.failures) server.InjectFailures(failure);
  EXPECT_EQ(Outcome(ledger.Reserve({"team-a", "p2", "u2"}, Gpus(1), false)), c.wantOutcome);
  EXPECT_EQ(Waits(), c.wantWaits);
  EXPECT_EQ(server.injected(), c.wantInjected);
  if (c.wantOutcome == "charged") {
    EXPECT_EQ(server.Get(kRecordPath)["status"]["usedSummary"], "nvidia.com/gpu=2");
  } else {
    EXPECT_EQ(server.Get(kRecordPath)["status"]["usedSummary"], "nvidia.com/gpu=1");
    EXPECT_EQ(server.requests("PUT") - puts, c.wantInjected);  // nothing sent after giving up
  }
  ledger.Stop();
}

INSTANTIATE_TEST_SUITE_P(Answers, ClusterLedgerRetryTest, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace gpugate::cluster
