#include "cli/serve_tuning.h"

#include <gtest/gtest.h>

#include <string>

namespace gpugate::cli {
namespace {

using namespace std::chrono_literals;

// "handshake=10000 headers=10000 body=10000 write=10000 handling=30000 idle=120000", in
// milliseconds.
std::string Deadlines(const transport::Tuning& t) {
  return "handshake=" + std::to_string(t.handshakeTimeout.count()) +
         " headers=" + std::to_string(t.headerTimeout.count()) +
         " body=" + std::to_string(t.bodyTimeout.count()) +
         " write=" + std::to_string(t.writeTimeout.count()) +
         " handling=" + std::to_string(t.handlingTimeout.count()) +
         " idle=" + std::to_string(t.keepAliveIdle.count());
}

TEST(ServeTuning, TheFilesDeadlinesReplaceOnlyWhatItSets) {
  const struct {
    std::string yaml;
    std::string want;
  } cases[] = {
      // No server section: the transport's defaults (docs/configuration.md states them).
      {"", "handshake=10000 headers=10000 body=10000 write=10000 handling=30000 idle=120000"},
      {"server: {headerTimeout: 250ms}",
       "handshake=10000 headers=250 body=10000 write=10000 handling=30000 idle=120000"},
      {"server:\n  handshakeTimeout: 300ms\n  headerTimeout: 1s\n  bodyTimeout: 1m30s\n"
       "  writeTimeout: 2m\n  handlingTimeout: 45s\n  keepAliveIdle: 1h\n",
       "handshake=300 headers=1000 body=90000 write=120000 handling=45000 idle=3600000"},
  };
  for (const auto& c : cases) {
    auto cfg = config::ParseConfig(c.yaml, "gpugate.yaml");
    ASSERT_TRUE(cfg.has_value()) << c.yaml << ": " << cfg.error().message;
    transport::Tuning tuning;
    ApplyServerConfig(cfg->server, tuning);
    EXPECT_EQ(Deadlines(tuning), c.want) << c.yaml;
  }
}

}  // namespace
}  // namespace gpugate::cli
