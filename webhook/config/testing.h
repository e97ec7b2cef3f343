// Test support shared by the config tests: a table of files that must be refused, each with the
// whole message a user would read. Header-only; tests only.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "config/config.h"

namespace gpugate::config::testing {

struct ErrorCase {
  std::string yaml;
  std::string want;  // the whole message: file:line: key.path: reason
};

// Parses each case as gpugate.yaml and expects exactly its message.
inline void ExpectErrors(const std::vector<ErrorCase>& cases) {
  for (const auto& c : cases) {
    auto got = ParseConfig(c.yaml, "gpugate.yaml");
    if (got.has_value()) {
      ADD_FAILURE() << "parsed without error:\n" << c.yaml;
      continue;
    }
    EXPECT_EQ(got.error().message, c.want) << c.yaml;
  }
}

}  // namespace gpugate::config::testing
