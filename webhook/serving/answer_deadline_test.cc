#include "serving/answer_deadline.h"

#include <gtest/gtest.h>

#include <chrono>

namespace gpugate::serving {
namespace {

using namespace std::chrono_literals;

TEST(AnswerDeadline, LeavesATenthOfTheTimeoutForSendingBetweenATenthAndOneSecond) {
  struct Case {
    std::chrono::milliseconds timeout, answerWithin;
  } cases[] = {
      {500ms, 400ms},                                       // the margin is at least 0.1 s
      {1s, 900ms},    {5s, 4500ms}, {10s, 9s}, {30s, 29s},  // and at most 1 s
  };
  const Deadline start = Deadline() + 1h;
  for (const Case& c : cases) {
    EXPECT_EQ(AnswerDeadline(start, c.timeout) - start, c.answerWithin) << c.timeout.count();
  }
}

}  // namespace
}  // namespace gpugate::serving
