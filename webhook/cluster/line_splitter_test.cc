#include "cluster/line_splitter.h"

#include <gtest/gtest.h>

#include <vector>

namespace gpugate::cluster {
namespace {

// Feeds `chunks` and renders what came out: lines joined by '|', then "+" + the finished tail.
std::string Split(const std::vector<std::string>& chunks, bool finish, int stopAfter = -1) {
  std::vector<std::string> lines;
  LineSplitter splitter([&](std::string_view line) {
    lines.emplace_back(line);
    return stopAfter < 0 || static_cast<int>(lines.size()) < stopAfter;
  });
  for (const auto& chunk : chunks) {
    if (!splitter.Feed(chunk)) break;
  }
  if (finish) splitter.Finish();
  std::string out;
  for (const auto& line : lines) out += (out.empty() ? "" : "|") + line;
  return out + (splitter.stopped() ? " (stopped)" : "");
}

TEST(KubeClientLines, SplitsChunksIntoLines) {
  struct Case {
    std::vector<std::string> chunks;
    bool finish;
    std::string want;
  } cases[] = {
      {{"a\nb\n"}, false, "a|b"},
      {{"a", "b", "\n", "c\n"}, false, "ab|c"},  // a line across three chunks
      {{"a\r\n", "b\r", "\n"}, false, "a|b"},    // CRLF, split between \r and \n
      {{"\n\n", "a\n\n"}, false, "a"},           // blank lines are skipped
      {{"a\nb"}, false, "a"},                    // a partial line waits for its end
      {{"a\nb"}, true, "a|b"},                   // ... and is whole when the stream ended
      {{"a\n", ""}, true, "a"},
      {{}, true, ""},
  };
  for (const auto& c : cases) EXPECT_EQ(Split(c.chunks, c.finish), c.want) << c.want;
}

TEST(KubeClientLines, StopsWhenTheHandlerSaysSo) {
  EXPECT_EQ(Split({"a\nb\nc\n", "d\n"}, true, 2), "a|b (stopped)");
}

TEST(KubeClientLines, RefusesALineLongerThanTheLimit) {
  LineSplitter splitter([](std::string_view) { return true; });
  std::string chunk(1 << 20, 'x');
  bool ok = true;
  for (size_t fed = 0; ok && fed <= LineSplitter::kMaxLineBytes; fed += chunk.size()) {
    ok = splitter.Feed(chunk);
  }
  EXPECT_FALSE(ok);
  EXPECT_FALSE(splitter.stopped());
}

}  // namespace
}  // namespace gpugate::cluster
