#include "serving/answer_deadline.h"

#include <algorithm>

namespace gpugate::serving {

Deadline AnswerDeadline(Deadline start, std::chrono::nanoseconds timeout) {
  using std::chrono::milliseconds;
  auto margin =
      std::clamp<std::chrono::nanoseconds>(timeout / 10, milliseconds(100), milliseconds(1000));
  return start + timeout - margin;
}

}  // namespace gpugate::serving
