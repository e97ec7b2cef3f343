// The cluster benchmarks' settings from the environment (ROUNDS=3, WRITE_LATENCY_MS="0 5", ...):
// an unset or empty variable takes the fallback.
#pragma once

#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

namespace gpugate::bench {

inline int EnvInt(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}

// Whitespace-separated integers.
inline std::vector<int> EnvInts(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  std::istringstream in(v && *v ? v : fallback);
  std::vector<int> out;
  for (int n; in >> n;) out.push_back(n);
  return out;
}

}  // namespace gpugate::bench
