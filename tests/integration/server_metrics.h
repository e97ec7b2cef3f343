// Test support: one figure from a running server's /metrics (Prometheus text).
#pragma once

#include <gtest/gtest.h>
#include <httplib.h>

#include <string>

#include "gpugate_process.h"

namespace gpugate::testing {

// The value of the series `series` (a metric's name, with its labels when it has any, as
// /metrics prints them: `gpugate_http_blocking_handoffs_total`); -1 when /metrics does not answer
// or does not list it. A missing answer also fails the current test.
inline double MetricValue(const GpugateServer& server, const std::string& series) {
  auto res = server.Client()->Get("/metrics");
  EXPECT_TRUE(res && res->status == 200);
  if (!res) return -1;
  const std::string line = "\n" + series + " ";
  size_t at = res->body.find(line);
  return at == std::string::npos ? -1 : std::stod(res->body.substr(at + line.size()));
}

}  // namespace gpugate::testing
