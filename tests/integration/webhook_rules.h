// Test support: which requests a webhook registration's `rules` send to it, as the API server
// matches them (manifests_test.cc, match_conditions_test.cc). Reads yaml-cpp nodes without
// throwing: a missing or malformed field matches nothing.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string_view>

namespace gpugate::testing {

struct ApiResource {
  const char* group;
  const char* version;   // one a cluster serves the resource at
  const char* resource;  // "pods", or with a subresource "pods/status"
};

// True when a rule's `resources` entry matches `resource` ("pods" or "pods/status") as the API
// server matches it: "*" is every resource but no subresource, "*/*" everything, "pods/*" every
// subresource of pods, "*/status" the status of every resource.
bool ResourceMatches(std::string_view entry, std::string_view resource);

// True when one of `webhook`'s rules sends `operation` on `r` to it.
bool Covers(const YAML::Node& webhook, const ApiResource& r, std::string_view operation);

}  // namespace gpugate::testing
