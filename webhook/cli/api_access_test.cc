#include "cli/api_access.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "support/temp_dir.h"

namespace gpugate::cli {
namespace {

namespace fs = std::filesystem;

TEST(OperatorKubeconfig, TheFlagThenKubeconfigThenHome) {
  gpugate::testing::TempDir scratch("gpugate-kubeconfig-");
  const fs::path dir = scratch.path();
  fs::create_directories(dir / "home" / ".kube");
  const std::string a = (dir / "a").string(), home = (dir / "home").string();
  const std::string homeConfig = home + "/.kube/config";
  std::ofstream(a) << "x";
  std::ofstream(homeConfig) << "x";
  const std::string missing = (dir / "missing").string();
  const std::string both = missing + ":" + a;
  const struct {
    std::string flag;
    const char* env;
    const char* home;
    std::string want;
  } cases[] = {
      {"/given", both.c_str(), home.c_str(), "/given"},  // the flag wins, checked or not
      {"", both.c_str(), home.c_str(), a},               // the first file that exists
      {"", missing.c_str(), home.c_str(), homeConfig},   // none does: ~/.kube/config
      {"", nullptr, home.c_str(), homeConfig},
      {"", "", home.c_str(), homeConfig},
      {"", nullptr, missing.c_str(), ""},  // nothing: in-cluster
      {"", nullptr, nullptr, ""},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(OperatorKubeconfig(c.flag, c.env, c.home), c.want)
        << c.flag << " | " << (c.env ? c.env : "(unset)") << " | " << (c.home ? c.home : "(unset)");
  }
}

}  // namespace
}  // namespace gpugate::cli
