#include "transport/batched_sink.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <unistd.h>

#include <memory>
#include <string>

namespace gpugate::transport {
namespace {

// A pipe whose read end the test drains; big enough (64 KiB) for every test's output.
class Pipe {
 public:
  Pipe() { EXPECT_EQ(pipe2(fds_, O_CLOEXEC), 0); }
  ~Pipe() {
    close(fds_[0]);
    if (fds_[1] >= 0) close(fds_[1]);
  }
  int writeEnd() const { return fds_[1]; }
  // Everything written so far, waiting up to `timeoutMs` for the first byte.
  std::string Drain(int timeoutMs = 0) {
    std::string out;
    pollfd p{.fd = fds_[0], .events = POLLIN, .revents = 0};
    while (poll(&p, 1, out.empty() ? timeoutMs : 0) == 1) {
      char buf[4096];
      ssize_t n = read(fds_[0], buf, sizeof buf);
      if (n <= 0) break;
      out.append(buf, static_cast<size_t>(n));
    }
    return out;
  }

 private:
  int fds_[2] = {-1, -1};
};

// "line 0\nline 1\n..." for `n` lines.
std::string Lines(int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += "line " + std::to_string(i) + "\n";
  return out;
}

TEST(BatchedSink, AFullBufferGoesOutWholeAndNoLineIsLost) {
  Pipe pipe;
  auto sink = std::make_shared<BatchedSink>(BatchedSink::Options{
      .fd = pipe.writeEnd(), .bufferBytes = 100, .flushEvery = std::chrono::milliseconds(0)});
  for (int i = 0; i < 100; ++i) sink->Add("line " + std::to_string(i) + "\n", false);
  // The lines not yet written are those of the last, partly filled buffer.
  std::string before = pipe.Drain();
  EXPECT_EQ(before, Lines(100).substr(0, before.size()));
  EXPECT_LT(before.size(), Lines(100).size());
  sink->Flush();
  EXPECT_EQ(before + pipe.Drain(), Lines(100));
  const BatchedSink::Stats s = sink->stats();
  EXPECT_EQ(s.lines, 100u);
  EXPECT_EQ(s.droppedLines, 0u);
  // 790 bytes in buffers of at most 100: at least 8 writes, and far fewer than one a line.
  EXPECT_GE(s.writes, 8u);
  EXPECT_LE(s.writes, 12u);
}

TEST(BatchedSink, ALineLongerThanTheBufferGoesOutWholeAfterThoseBeforeIt) {
  Pipe pipe;
  auto sink = std::make_shared<BatchedSink>(BatchedSink::Options{
      .fd = pipe.writeEnd(), .bufferBytes = 16, .flushEvery = std::chrono::milliseconds(0)});
  sink->Add("short\n", false);
  sink->Add(std::string(40, 'x') + "\n", false);
  sink->Add("after\n", false);
  sink->Flush();
  EXPECT_EQ(pipe.Drain(), "short\n" + std::string(40, 'x') + "\nafter\n");
  EXPECT_EQ(sink->stats().writes, 3u);
}

TEST(BatchedSink, ALineThatAsksGoesOutAtOnceWithThoseBeforeIt) {
  Pipe pipe;
  auto sink = std::make_shared<BatchedSink>(BatchedSink::Options{
      .fd = pipe.writeEnd(), .bufferBytes = 4096, .flushEvery = std::chrono::hours(1)});
  sink->Add("info\n", false);
  EXPECT_EQ(pipe.Drain(), "");
  sink->Add("warning\n", true);
  EXPECT_EQ(pipe.Drain(), "info\nwarning\n");
  EXPECT_EQ(sink->stats().writes, 1u);
}

TEST(BatchedSink, DestroyingTheSinkWritesWhatIsBuffered) {
  Pipe pipe;
  {
    auto sink = std::make_shared<BatchedSink>(BatchedSink::Options{
        .fd = pipe.writeEnd(), .bufferBytes = 4096, .flushEvery = std::chrono::hours(1)});
    for (int i = 0; i < 10; ++i) sink->Add("line " + std::to_string(i) + "\n", false);
    EXPECT_EQ(pipe.Drain(), "");
  }
  EXPECT_EQ(pipe.Drain(), Lines(10));
}

TEST(BatchedSink, TheTimerWritesLinesOut) {
  Pipe pipe;
  auto sink = std::make_shared<BatchedSink>(BatchedSink::Options{
      .fd = pipe.writeEnd(), .bufferBytes = 4096, .flushEvery = std::chrono::milliseconds(1)});
  sink->Add("line 0\n", false);
  // Nothing flushes but the timer; the wait is a bound for a stuck test, not a measurement.
  EXPECT_EQ(pipe.Drain(/*timeoutMs=*/10'000), Lines(1));
}

TEST(BatchedSink, LinesTheDescriptorRefusesAreCounted) {
  const int readOnly = open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(readOnly, 0);
  auto sink = std::make_shared<BatchedSink>(BatchedSink::Options{
      .fd = readOnly, .bufferBytes = 4096, .flushEvery = std::chrono::milliseconds(0)});
  for (int i = 0; i < 3; ++i) sink->Add("line " + std::to_string(i) + "\n", false);
  sink->Flush();
  EXPECT_EQ(sink->stats().droppedLines, 3u);
  EXPECT_EQ(sink->stats().lines, 3u);
  close(readOnly);
}

}  // namespace
}  // namespace gpugate::transport
