// Which files a `gpugate check -f` argument names, and reading them.
#pragma once

#include <expected>
#include <string>
#include <vector>

#include "manifest/manifest_reader.h"

namespace gpugate::manifest {

// "-" (standard input) and a file are themselves, whatever the file's name; a directory is every
// file ending in .yaml, .yml or .json beneath it, in subdirectories too, sorted by path so that
// output never changes order between runs. A path that does not exist, or a directory that
// cannot be listed, is an error.
std::expected<std::vector<std::string>, ManifestError> ManifestPaths(const std::string& path);

// The text of a file from ManifestPaths; "-" reads standard input to its end.
std::expected<std::string, ManifestError> ReadManifestText(const std::string& path);

}  // namespace gpugate::manifest
