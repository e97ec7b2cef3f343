// Where the test binaries find the source tree, the gpugate binary they start and the Kubernetes
// API fixtures. The values live in one file that tests/CMakeLists.txt generates into the build
// tree (test_paths.cc), not in compile definitions: then no other test file's compile depends on
// where the tree is checked out, and ccache serves a fresh clone from an earlier clone's objects.
#pragma once

namespace gpugate::test_paths {

extern const char* const kSourceDir;      // the repository's root
extern const char* const kGpugateBinary;  // this build tree's gpugate
extern const char* const kFixturesDir;    // tests/testdata/k8s-api

}  // namespace gpugate::test_paths

#define GPUGATE_SOURCE_DIR (::gpugate::test_paths::kSourceDir)
#define GPUGATE_BINARY (::gpugate::test_paths::kGpugateBinary)
#define GPUGATE_FIXTURES_DIR (::gpugate::test_paths::kFixturesDir)
