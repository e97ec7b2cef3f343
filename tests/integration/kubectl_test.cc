// Which kubectl the manifest tests accept, from what `kubectl version --client -o json` prints.
#include "kubectl.h"

#include <gtest/gtest.h>

#include <string>

namespace gpugate::testing {
namespace {

std::string VersionJson(const std::string& major, const std::string& minor,
                        const std::string& gitVersion, const std::string& kustomize) {
  std::string json = R"({"clientVersion": {"major": ")" + major + R"(", "minor": ")" + minor +
                     R"(", "gitVersion": ")" + gitVersion + R"(", "platform": "linux/amd64"})";
  if (!kustomize.empty()) json += R"(, "kustomizeVersion": ")" + kustomize + R"(")";
  return json + "}";
}

TEST(KubectlVersion, AcceptsKustomizeFromV41) {
  struct Case {
    std::string json;
    std::string want;  // the version when accepted, else the reason
    bool accepted;
  } cases[] = {
      {VersionJson("1", "32+", "v1.32.4-dispatcher", "v5.5.0"), "v1.32.4-dispatcher", true},
      {VersionJson("1", "31", "v1.31.9", "v5.4.2"), "v1.31.9", true},
      {VersionJson("1", "24", "v1.24.0", "v4.5.4"), "v1.24.0", true},
      {VersionJson("1", "24", "v1.24.0", "v4.1.0"), "v1.24.0", true},
      {VersionJson("1", "24", "v1.24.0", "v4.0.5"), "v1.24.0, whose kustomize is v4.0.5", false},
      // Before 1.24 kubectl does not report its kustomize: 1.22 bundles v4.2.0, 1.21 v4.0.5,
      // Debian bookworm's 1.20 v2.0.3.
      {VersionJson("1", "22", "v1.22.0", ""), "v1.22.0", true},
      {VersionJson("1", "23+", "v1.23.17-eks", ""), "v1.23.17-eks", true},
      {VersionJson("1", "21", "v1.21.0", ""), "v1.21.0, whose kustomize predates v4.1.0", false},
      {VersionJson("1", "20", "v1.20.15", ""), "v1.20.15, whose kustomize predates v4.1.0", false},
      {"not json", "printed no clientVersion.gitVersion", false},
      {R"({"clientVersion": {"major": "1"}})", "printed no clientVersion.gitVersion", false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.json);
    Result<std::string> got = CheckKubectlVersion(c.json);
    ASSERT_EQ(got.has_value(), c.accepted) << (got ? *got : got.error().message);
    EXPECT_EQ(got ? *got : got.error().message, c.want);
  }
}

}  // namespace
}  // namespace gpugate::testing
