#include "manifest/manifest_files.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "support/temp_dir.h"

namespace gpugate::manifest {
namespace {

namespace fs = std::filesystem;

// A scratch tree removed when the test ends.
class ManifestPathsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(scratch_.path().empty());
    for (const char* file : {"b.yaml", "a.json", "notes.txt", "sub/deeper/c.yml", "sub/d.yaml",
                             "sub/README.md", "sub/e.YAML"}) {
      fs::create_directories((root_ / file).parent_path());
      std::ofstream(root_ / file) << "kind: Pod\n";
    }
    fs::create_directories(root_ / "empty.yaml");  // a directory, whatever its name
  }

  // The paths, relative to the tree, or "error: message".
  std::vector<std::string> Paths(const std::string& arg) {
    auto paths = ManifestPaths(arg);
    if (!paths) return {"error: " + paths.error().message};
    std::vector<std::string> out;
    for (const std::string& p : *paths) out.push_back(fs::path(p).lexically_relative(root_));
    return out;
  }

  gpugate::testing::TempDir scratch_{"gpugate-manifests-"};  // removed with the fixture
  fs::path root_ = scratch_.path();
};

TEST_F(ManifestPathsTest, ADirectoryIsItsManifestFilesSortedAFileIsItself) {
  const struct {
    std::string arg;
    std::vector<std::string> want;
  } cases[] = {
      {"", {"a.json", "b.yaml", "sub/d.yaml", "sub/deeper/c.yml"}},
      {"sub", {"sub/d.yaml", "sub/deeper/c.yml"}},
      {"notes.txt", {"notes.txt"}},  // named by the user: read whatever its name
      {"missing.yaml", {"error: cannot read: No such file or directory"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.arg);
    EXPECT_EQ(Paths((root_ / c.arg).string()), c.want);
  }
  auto dash = ManifestPaths("-");
  ASSERT_TRUE(dash);
  EXPECT_EQ(*dash, std::vector<std::string>{"-"});
}

TEST_F(ManifestPathsTest, AnUnreadableFileIsAnErrorNamingIt) {
  const std::string path = (root_ / "empty.yaml").string();
  auto text = ReadManifestText(path);
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error().at.file, path);
  EXPECT_EQ(text.error().message, "cannot read: Is a directory");
}

}  // namespace
}  // namespace gpugate::manifest
