// Test support (tests only; production code never includes tests/support): a scratch directory
// that removes itself.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

namespace gpugate::testing {

// A fresh directory, <system temp dir>/<prefix>XXXXXX, removed with everything in it when the
// object dies. If it cannot be made, the test fails (non-fatally) and path() is "": a test that
// cannot go on without it asserts that path() is not empty.
class TempDir {
 public:
  explicit TempDir(std::string_view prefix = "gpugate-test-") {
    std::string pattern =
        (std::filesystem::temp_directory_path() / (std::string(prefix) + "XXXXXX")).string();
    if (mkdtemp(pattern.data()) != nullptr) {
      path_ = pattern;
    } else {
      ADD_FAILURE() << "mkdtemp " << pattern << ": " << std::strerror(errno);
    }
  }
  ~TempDir() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  std::string File(const std::string& name) const { return path_ + "/" + name; }
  // Writes `text` to `name` (creating its parent directories) and returns the file's path.
  std::string Write(const std::string& name, const std::string& text) const {
    std::filesystem::path file = File(name);
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << text;
    return file.string();
  }

 private:
  std::string path_;
};

}  // namespace gpugate::testing
