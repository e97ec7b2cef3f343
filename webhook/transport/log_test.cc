#include "transport/log.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

namespace gpugate::transport {
namespace {

// What the body writes to stderr, captured in an unlinked file (a pipe would fill). Before
// InitJsonLogging (which this test binary never calls) each line goes out at once.
template <typename Body>
std::string StderrOf(Body body) {
  char path[] = "/tmp/gpugate_log_test_XXXXXX";
  const int file = mkstemp(path);
  EXPECT_GE(file, 0);
  unlink(path);
  const int saved = dup(STDERR_FILENO);
  dup2(file, STDERR_FILENO);
  body();
  dup2(saved, STDERR_FILENO);
  close(saved);
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = pread(file, buf, sizeof buf, static_cast<off_t>(out.size()))) > 0;) {
    out.append(buf, static_cast<size_t>(n));
  }
  close(file);
  return out;
}

TEST(LogLine, IsOneJsonObjectWithTimeLevelAndEscapedValues) {
  const std::string out = StderrOf([] {
    LogLine("decision")
        .Str("uid", "u-1")
        .Str("message", "quota \"team-a\"\nexceeded\\")
        .Int("micros", -42)
        .Bool("dryRun", true)
        .Warn();
  });
  ASSERT_FALSE(out.empty());
  ASSERT_EQ(out.back(), '\n');
  EXPECT_EQ(out.find('\n'), out.size() - 1) << "one line: " << out;
  const nlohmann::json line = nlohmann::json::parse(out);
  EXPECT_EQ(line["level"], "warning");
  EXPECT_EQ(line["msg"], "decision");
  EXPECT_EQ(line["uid"], "u-1");
  EXPECT_EQ(line["message"], "quota \"team-a\"\nexceeded\\");
  EXPECT_EQ(line["micros"], -42);
  EXPECT_EQ(line["dryRun"], true);
  // RFC 3339, UTC, microseconds: what log pipelines parse.
  EXPECT_TRUE(std::regex_match(line["time"].get<std::string>(),
                               std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z)")))
      << line["time"];
  // The members in the order they were added, after time and level.
  EXPECT_LT(out.find("\"level\""), out.find("\"msg\""));
  EXPECT_LT(out.find("\"uid\""), out.find("\"message\""));
}

TEST(LogLine, NamesEachLevel) {
  const std::string out = StderrOf([] {
    LogLine("a").Info();
    LogLine("b").Error();
  });
  const size_t cut = out.find('\n') + 1;
  EXPECT_EQ(nlohmann::json::parse(out.substr(0, cut))["level"], "info");
  EXPECT_EQ(nlohmann::json::parse(out.substr(cut))["level"], "error");
}

TEST(LogLine, ALongLineIsWrittenWhole) {
  const std::string value(100'000, 'v');
  const std::string out = StderrOf([&] { LogLine("long").Str("value", value).Info(); });
  EXPECT_EQ(nlohmann::json::parse(out)["value"], value);
}

// Past the room a line reserves, many members each make it grow: every key and value lands
// where it belongs.
TEST(LogLine, ManyMembersPastTheReservedRoomEachComeOutWhole) {
  nlohmann::json want = {{"level", "info"}, {"msg", "many"}};
  const std::string out = StderrOf([&] {
    LogLine line("many");
    for (int i = 0; i < 200; ++i) {
      const std::string key = "key-" + std::to_string(i) + std::string(i % 37, 'k');
      const std::string value = std::string(i % 11, 'v') + std::to_string(i);
      line.Str(key, value);
      want[key] = value;
    }
    line.Info();
  });
  nlohmann::json got = nlohmann::json::parse(out);
  got.erase("time");
  EXPECT_EQ(got, want);
}

// Lines borrow their thread's buffer: lines built one inside another, and lines after a long
// one (whose buffer is not kept), each come out whole with only their own members.
TEST(LogLine, LinesInTurnAndInsideEachOtherKeepTheirOwnMembers) {
  const std::string value(100'000, 'v');
  const std::string out = StderrOf([&] {
    LogLine("first").Str("a", "1").Info();
    LogLine outer("outer");
    outer.Str("b", "2");
    LogLine("inner").Str("c", "3").Info();
    outer.Str("d", "4").Info();
    LogLine("long").Str("value", value).Info();
    LogLine("last").Str("e", "5").Info();
  });
  std::vector<nlohmann::json> lines;
  for (size_t at = 0, end; (end = out.find('\n', at)) != std::string::npos; at = end + 1) {
    lines.push_back(nlohmann::json::parse(out.substr(at, end - at)));
    lines.back().erase("time");
  }
  ASSERT_EQ(lines.size(), 5u) << out.substr(0, 500);
  EXPECT_EQ(lines[0], (nlohmann::json{{"level", "info"}, {"msg", "first"}, {"a", "1"}}));
  EXPECT_EQ(lines[1], (nlohmann::json{{"level", "info"}, {"msg", "inner"}, {"c", "3"}}));
  EXPECT_EQ(lines[2],
            (nlohmann::json{{"level", "info"}, {"msg", "outer"}, {"b", "2"}, {"d", "4"}}));
  EXPECT_EQ(lines[3], (nlohmann::json{{"level", "info"}, {"msg", "long"}, {"value", value}}));
  EXPECT_EQ(lines[4], (nlohmann::json{{"level", "info"}, {"msg", "last"}, {"e", "5"}}));
}

}  // namespace
}  // namespace gpugate::transport
