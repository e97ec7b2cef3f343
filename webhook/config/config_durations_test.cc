// The duration keys: the server section's deadlines, and the Go-duration spellings of the keys
// that used to take whole seconds (which still do). Accepted spellings, then refusals with the
// whole message a user sees.
#include <gtest/gtest.h>

#include <string>

#include "config/config.h"
#include "config/testing.h"

namespace gpugate::config {
namespace {

// "handshake=- headers=250 ... shutdown=0 reload=10000 grace=60000 reconcile=5000", in
// milliseconds; "-" for a server deadline left to the transport's default.
std::string RenderDurations(const Config& c) {
  auto ms = [](std::chrono::milliseconds d) { return std::to_string(d.count()); };
  auto opt = [&](const std::optional<std::chrono::milliseconds>& d) {
    return d ? ms(*d) : std::string("-");
  };
  return "handshake=" + opt(c.server.handshakeTimeout) + " headers=" + opt(c.server.headerTimeout) +
         " body=" + opt(c.server.bodyTimeout) + " write=" + opt(c.server.writeTimeout) +
         " idle=" + opt(c.server.keepAliveIdle) + " shutdown=" + ms(c.shutdownDelay) +
         " reload=" + ms(c.tls.reloadInterval) + " grace=" + ms(c.cluster.reservationGrace) +
         " reconcile=" + ms(c.cluster.reconcileInterval);
}

constexpr char kDefaults[] =
    "handshake=- headers=- body=- write=- idle=- shutdown=0 reload=10000 grace=60000 "
    "reconcile=5000";

TEST(ConfigDurations, AcceptedSpellings) {
  const struct {
    std::string yaml;
    std::string want;
  } cases[] = {
      {"", kDefaults},
      {"server:\n  handshakeTimeout: 10s\n  headerTimeout: 250ms\n  bodyTimeout: 1m30s\n"
       "  writeTimeout: 2m\n  keepAliveIdle: 1h\n",
       "handshake=10000 headers=250 body=90000 write=120000 idle=3600000 shutdown=0 "
       "reload=10000 grace=60000 reconcile=5000"},
      // The bounds, a quoted value, a fraction, a sum of units, another unit for the same time.
      {"server: {handshakeTimeout: 100ms, headerTimeout: \"1.5s\", bodyTimeout: 1h0m0s, "
       "writeTimeout: 300000us, keepAliveIdle: 120s}",
       "handshake=100 headers=1500 body=3600000 write=300 idle=120000 shutdown=0 reload=10000 "
       "grace=60000 reconcile=5000"},
      {"server: {}", kDefaults},
      {"shutdownDelay: 500ms",
       "handshake=- headers=- body=- write=- idle=- shutdown=500 reload=10000 grace=60000 "
       "reconcile=5000"},
      {"shutdownDelay: 0", kDefaults},
      {"shutdownDelay: 0s", kDefaults},
      {"shutdownDelay: 5m",
       "handshake=- headers=- body=- write=- idle=- shutdown=300000 reload=10000 grace=60000 "
       "reconcile=5000"},
      // The older spellings, in whole seconds, mean the same.
      {"shutdownDelaySeconds: 300",
       "handshake=- headers=- body=- write=- idle=- shutdown=300000 reload=10000 grace=60000 "
       "reconcile=5000"},
      {"tls: {reloadInterval: 250ms}",
       "handshake=- headers=- body=- write=- idle=- shutdown=0 reload=250 grace=60000 "
       "reconcile=5000"},
      {"tls: {reloadIntervalSeconds: 2}",
       "handshake=- headers=- body=- write=- idle=- shutdown=0 reload=2000 grace=60000 "
       "reconcile=5000"},
      {"cluster: {reservationGrace: 500ms, reconcileInterval: 100ms}",
       "handshake=- headers=- body=- write=- idle=- shutdown=0 reload=10000 grace=500 "
       "reconcile=100"},
      {"cluster: {reservationGraceSeconds: 2, reconcileIntervalSeconds: 1}",
       "handshake=- headers=- body=- write=- idle=- shutdown=0 reload=10000 grace=2000 "
       "reconcile=1000"},
      {"cluster: {reservationGrace: 1h, reconcileInterval: 1m}",
       "handshake=- headers=- body=- write=- idle=- shutdown=0 reload=10000 grace=3600000 "
       "reconcile=60000"},
  };
  for (const auto& c : cases) {
    auto got = ParseConfig(c.yaml, "gpugate.yaml");
    ASSERT_TRUE(got.has_value()) << c.yaml << "\n" << got.error().message;
    EXPECT_EQ(RenderDurations(*got), c.want) << c.yaml;
  }
}

TEST(ConfigDurations, Refusals) {
  testing::ExpectErrors({
      // A bare number could mean seconds or milliseconds.
      {"server: {headerTimeout: 10}",
       "gpugate.yaml:1: server.headerTimeout: must be a duration from 100ms to 1h, e.g. \"10s\" "
       "or \"250ms\", got \"10\": missing or unknown unit (ns, us, ms, s, m, h)"},
      {"server:\n  bodyTimeout: 10 s\n",
       "gpugate.yaml:2: server.bodyTimeout: must be a duration from 100ms to 1h, e.g. \"10s\" or "
       "\"250ms\", got \"10 s\": missing or unknown unit (ns, us, ms, s, m, h)"},
      {"server: {handshakeTimeout: -1s}",
       "gpugate.yaml:1: server.handshakeTimeout: must be a duration from 100ms to 1h, e.g. "
       "\"10s\" or \"250ms\", got \"-1s\": negative"},
      {"server: {headerTimeout: 50ms}",
       "gpugate.yaml:1: server.headerTimeout: must be a duration from 100ms to 1h, got \"50ms\""},
      {"server: {writeTimeout: 0s}",
       "gpugate.yaml:1: server.writeTimeout: must be a duration from 100ms to 1h, got \"0s\""},
      {"server: {keepAliveIdle: 61m}",
       "gpugate.yaml:1: server.keepAliveIdle: must be a duration from 100ms to 1h, got \"61m\""},
      {"server: {headerTimeout: 1500us}",
       "gpugate.yaml:1: server.headerTimeout: must be a whole number of milliseconds, got "
       "\"1500us\""},
      {"server: {headerTimeout: [1s]}",
       "gpugate.yaml:1: server.headerTimeout: must be a duration from 100ms to 1h, e.g. \"10s\" "
       "or \"250ms\", got a list"},
      {"server:\n  headerTimeout:\n",
       "gpugate.yaml:2: server.headerTimeout: must be a duration from 100ms to 1h, e.g. \"10s\" "
       "or \"250ms\", got null"},
      {"server: {readTimeout: 1s}",
       "gpugate.yaml:1: server.readTimeout: unknown key (known: handshakeTimeout, headerTimeout, "
       "bodyTimeout, writeTimeout, handlingTimeout, bufferedRequestBytes, keepAliveIdle)"},
      {"server: 10s", "gpugate.yaml:1: server: must be a map, got \"10s\""},
      {"shutdownDelay: 6m",
       "gpugate.yaml:1: shutdownDelay: must be a duration from 0s to 5m, got \"6m\""},
      {"shutdownDelay: 5",
       "gpugate.yaml:1: shutdownDelay: must be a duration from 0s to 5m, e.g. \"10s\" or "
       "\"250ms\", got \"5\": missing or unknown unit (ns, us, ms, s, m, h)"},
      // One setting, two spellings: refused wherever the second one stands.
      {"shutdownDelay: 1s\nshutdownDelaySeconds: 1\n",
       "gpugate.yaml:2: shutdownDelaySeconds: set shutdownDelay or shutdownDelaySeconds, not both "
       "(shutdownDelaySeconds is the older spelling, in whole seconds)"},
      {"shutdownDelaySeconds: 1\nlisten: \"0.0.0.0:1\"\nshutdownDelay: 1s\n",
       "gpugate.yaml:3: shutdownDelay: set shutdownDelay or shutdownDelaySeconds, not both "
       "(shutdownDelaySeconds is the older spelling, in whole seconds)"},
      {"tls:\n  reloadIntervalSeconds: 1\n  reloadInterval: 1s\n",
       "gpugate.yaml:3: tls.reloadInterval: set reloadInterval or reloadIntervalSeconds, not "
       "both (reloadIntervalSeconds is the older spelling, in whole seconds)"},
      {"tls: {reloadInterval: 50ms}",
       "gpugate.yaml:1: tls.reloadInterval: must be a duration from 100ms to 1h, got \"50ms\""},
      {"cluster:\n  reconcileInterval: 10ms\n",
       "gpugate.yaml:2: cluster.reconcileInterval: must be a duration from 100ms to 1h, got "
       "\"10ms\""},
      {"cluster:\n  reservationGrace: 2s\n  reservationGraceSeconds: 2\n",
       "gpugate.yaml:3: cluster.reservationGraceSeconds: set reservationGrace or "
       "reservationGraceSeconds, not both (reservationGraceSeconds is the older spelling, in "
       "whole seconds)"},
      {"cluster:\n  reconcileIntervalSeconds: 1\n  reconcileInterval: 1s\n",
       "gpugate.yaml:3: cluster.reconcileInterval: set reconcileInterval or "
       "reconcileIntervalSeconds, not both (reconcileIntervalSeconds is the older spelling, in "
       "whole seconds)"},
  });
}

}  // namespace
}  // namespace gpugate::config
