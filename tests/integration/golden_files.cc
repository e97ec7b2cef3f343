#include "golden_files.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "gpugate_process.h"

namespace gpugate::testing {

GoldenFiles::GoldenFiles(std::filesystem::path dir)
    : dir_(std::move(dir)), update_(std::getenv("UPDATE_GOLDEN") != nullptr) {}

GoldenFiles::~GoldenFiles() {
  for (const auto& entry : std::filesystem::directory_iterator(dir_)) {
    EXPECT_TRUE(written_.count(entry.path().filename().string()))
        << entry.path() << " belongs to no case; remove it";
  }
}

void GoldenFiles::Compare(const std::string& name, const std::string& got) {
  const std::filesystem::path golden = dir_ / name;
  written_.insert(name);
  if (update_) {
    std::ofstream(golden, std::ios::binary) << got;
    return;
  }
  ASSERT_TRUE(std::filesystem::exists(golden)) << golden << " is missing; run with UPDATE_GOLDEN=1";
  EXPECT_EQ(got, ReadFile(golden.string()));
}

}  // namespace gpugate::testing
