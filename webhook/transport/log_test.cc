#include "transport/log.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <string>

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

}  // namespace
}  // namespace gpugate::transport
