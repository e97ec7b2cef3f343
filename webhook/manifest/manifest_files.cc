#include "manifest/manifest_files.h"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <system_error>

#include "common/files.h"

namespace gpugate::manifest {
namespace {

namespace fs = std::filesystem;

bool IsManifestName(const fs::path& path) {
  const std::string ext = path.extension().string();
  return ext == ".yaml" || ext == ".yml" || ext == ".json";
}

ManifestError CannotList(const std::string& path, const std::error_code& ec) {
  return ManifestError{{path, 0}, "cannot read: " + ec.message()};
}

}  // namespace

std::expected<std::vector<std::string>, ManifestError> ManifestPaths(const std::string& path) {
  if (path == "-") return std::vector<std::string>{path};
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (ec) return std::unexpected(CannotList(path, ec));
  if (!fs::is_directory(status)) return std::vector<std::string>{path};
  std::vector<std::string> files;
  fs::recursive_directory_iterator it(path, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    if (IsManifestName(it->path()) && it->is_regular_file(ec)) files.push_back(it->path().string());
  }
  if (ec) return std::unexpected(CannotList(path, ec));
  std::sort(files.begin(), files.end());
  return files;
}

std::expected<std::string, ManifestError> ReadManifestText(const std::string& path) {
  if (path == "-") {
    std::string text(std::istreambuf_iterator<char>(std::cin), {});
    if (std::cin.bad()) return std::unexpected(ManifestError{{path, 0}, "cannot read stdin"});
    return text;
  }
  auto text = ReadFile(path);
  if (!text) {
    // "cannot read <path>: <reason>"; the location names the path already.
    std::string message = text.error().message;
    if (const std::string named = "cannot read " + path + ": "; message.starts_with(named)) {
      message = "cannot read: " + message.substr(named.size());
    }
    return std::unexpected(ManifestError{{path, 0}, std::move(message)});
  }
  return std::move(*text);
}

}  // namespace gpugate::manifest
