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

// The request-byte budget: a byte count or a quantity, 64 MiB unless the file says otherwise.
TEST(ServeTuning, TheFileSetsTheRequestByteBudget) {
  const struct {
    std::string yaml;
    size_t want;  // 0: refused with `error`
    std::string error;
  } cases[] = {
      {"", 64 << 20, ""},
      {"server: {bufferedRequestBytes: 256Mi}", size_t{256} << 20, ""},
      {"server: {bufferedRequestBytes: 20000000}", 20'000'000, ""},
      {"server: {bufferedRequestBytes: \"1Gi\"}", size_t{1} << 30, ""},
      {"server: {bufferedRequestBytes: 8Mi}", 0,
       "gpugate.yaml:1: server.bufferedRequestBytes: must be a byte size from 16Mi to 64Gi, e.g. "
       "\"64Mi\", got \"8Mi\""},
      {"server: {bufferedRequestBytes: 1.5Gi}", size_t{3} << 29, ""},
      {"server: {bufferedRequestBytes: lots}", 0,
       "gpugate.yaml:1: server.bufferedRequestBytes: must be a byte size from 16Mi to 64Gi, e.g. "
       "\"64Mi\", got \"lots\""},
      {"server: {bufferedRequestBytes: [1]}", 0,
       "gpugate.yaml:1: server.bufferedRequestBytes: must be a byte size from 16Mi to 64Gi, e.g. "
       "\"64Mi\", got a list"},
  };
  for (const auto& c : cases) {
    auto cfg = config::ParseConfig(c.yaml, "gpugate.yaml");
    if (c.want == 0) {
      ASSERT_FALSE(cfg.has_value()) << c.yaml;
      EXPECT_EQ(cfg.error().message, c.error);
      continue;
    }
    ASSERT_TRUE(cfg.has_value()) << c.yaml << ": " << cfg.error().message;
    transport::Tuning tuning;
    ApplyServerConfig(cfg->server, tuning);
    EXPECT_EQ(tuning.bufferedRequestBytes, c.want) << c.yaml;
  }
}

}  // namespace
}  // namespace gpugate::cli
