// Test support: a directory of golden text files, one per case, compared with what a case
// produced; UPDATE_GOLDEN=1 rewrites them instead. A file that no case wrote fails the test, so a
// renamed or removed case leaves nothing stale behind (check_test.cc, audit_test.cc).
#pragma once

#include <filesystem>
#include <set>
#include <string>

namespace gpugate::testing {

class GoldenFiles {
 public:
  explicit GoldenFiles(std::filesystem::path dir);
  // Fails the test, naming the stray file, for each file of the directory no Compare named.
  ~GoldenFiles();

  // `dir`/`name` must hold `got` (or, with UPDATE_GOLDEN set, now does).
  void Compare(const std::string& name, const std::string& got);

 private:
  std::filesystem::path dir_;
  bool update_;
  std::set<std::string> written_;
};

}  // namespace gpugate::testing
