// CallWithRetries and IsTransient as tables: the answers the API gives, one after another, and
// the waits and tries they lead to. Time is a fake clock moved by the injected sleep.
#include "cluster/api_retry.h"

#include <gtest/gtest.h>

#include <deque>
#include <string>
#include <vector>

namespace gpugate::cluster {
namespace {

using std::chrono::milliseconds;

// A Status object's body, as the API server sends with an error status.
std::string StatusBody(const std::string& message) {
  return R"({"kind":"Status","apiVersion":"v1","message":")" + message + R"("})";
}

struct TransientCase {
  std::string name;
  Result<HttpResult> answer;
  bool want;
};

TEST(IsTransient, TellsTheAnswersWorthAnotherTry) {
  const std::vector<TransientCase> cases = {
      {"429", HttpResult{.status = 429}, true},
      {"503", HttpResult{.status = 503}, true},
      {"500 leader changed",
       HttpResult{.status = 500, .body = StatusBody("etcdserver: leader changed")}, true},
      {"500 too large",
       HttpResult{.status = 500, .body = StatusBody("etcdserver: request is too large")}, false},
      {"500 other", HttpResult{.status = 500, .body = StatusBody("webhook panicked")}, false},
      {"500 not a Status", HttpResult{.status = 500, .body = "etcdserver: leader changed"}, false},
      {"409", HttpResult{.status = 409}, false},
      {"no answer", Fail("cannot connect"), false},
  };
  for (const TransientCase& c : cases) EXPECT_EQ(IsTransient(c.answer), c.want) << c.name;
}

struct RetryCase {
  std::string name;
  std::vector<HttpResult> answers;  // in order; the last repeats
  milliseconds budget;              // the deadline, from the start
  int wantStatus;                   // of the answer returned
  int wantTries;
  std::string wantWaits;  // the sleeps between tries, "50 100"
};

// Backoff 100 ms doubling to 1 s, jitter fixed at half (kEqual: 75, 150, 300, 600, 750...);
// Retry-After in whole seconds, capped at 2.
const std::vector<RetryCase> kRetryCases = {
    {"AnAnswerThatIsNotTransientIsReturnedAtOnce",
     {{.status = 404}},
     milliseconds(4000),
     404,
     1,
     ""},
    {"TransientAnswersAreTriedAgainAfterAJitteredBackoff",
     {{.status = 503}, {.status = 503}, {.status = 503}, {.status = 200}},
     milliseconds(4000),
     200,
     4,
     "75 150 300"},
    {"RetryAfterIsTheWaitAndIsCapped",
     {{.status = 429, .retryAfter = "1"}, {.status = 429, .retryAfter = "30"}, {.status = 200}},
     milliseconds(4000),
     200,
     3,
     "1000 2000"},
    {"ARetryAfterOfZeroIsTakenAsAbsent",
     {{.status = 429, .retryAfter = "0"}, {.status = 200}},
     milliseconds(4000),
     200,
     2,
     "75"},
    {"TheLastAnswerIsReturnedWhenTheDeadlineLeavesNoRoomForAnotherTry",
     {{.status = 503}},
     milliseconds(1000),
     503,
     4,
     "75 150 300"},
};

class CallWithRetriesTest : public ::testing::TestWithParam<RetryCase> {};

TEST_P(CallWithRetriesTest, WaitsAndTries) {
  const RetryCase& c = GetParam();
  const auto start = ApiRetry::SteadyClock::now();
  auto now = start;
  std::string waits;
  ApiRetry policy;
  policy.clock = [&] { return now; };
  policy.sleep = [&](milliseconds wait) {
    now += wait;
    waits += (waits.empty() ? "" : " ") + std::to_string(wait.count());
  };
  policy.jitter = [] { return 0.5; };
  std::deque<HttpResult> answers(c.answers.begin(), c.answers.end());
  RetriedAnswer got = CallWithRetries(policy, start + c.budget, [&]() -> Result<HttpResult> {
    HttpResult next = answers.front();
    if (answers.size() > 1) answers.pop_front();
    return next;
  });
  ASSERT_TRUE(got.answer);
  EXPECT_EQ(got.answer->status, c.wantStatus);
  EXPECT_EQ(got.tries, c.wantTries);
  EXPECT_EQ(waits, c.wantWaits);
}

INSTANTIATE_TEST_SUITE_P(Answers, CallWithRetriesTest, ::testing::ValuesIn(kRetryCases),
                         [](const ::testing::TestParamInfo<RetryCase>& info) {
                           return info.param.name;
                         });

TEST(CallWithRetries, NoAnswerAtAllIsReturnedAtOnce) {
  int tries = 0;
  RetriedAnswer got = CallWithRetries(ApiRetry{}, ApiRetry::SteadyClock::now() + milliseconds(4000),
                                      [&]() -> Result<HttpResult> {
                                        ++tries;
                                        return Fail("cannot connect");
                                      });
  EXPECT_FALSE(got.answer);
  EXPECT_EQ(tries, 1);
  EXPECT_EQ(got.tries, 1);
}

}  // namespace
}  // namespace gpugate::cluster
