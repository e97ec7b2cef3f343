// Puts an issued CertBundle where a user needs it: files on disk, and the caBundle string for
// webhook configurations.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <utility>

#include "certs/certificates.h"
#include "common/base64.h"

namespace gpugate::certs {
namespace {

std::unexpected<Error> ErrnoFailure(const std::string& what, int err) {
  return Fail(what + ": " + std::strerror(err));
}

Status WriteAll(int fd, std::string_view data, const std::string& path) {
  while (!data.empty()) {
    ssize_t n = write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoFailure("writing " + path, errno);
    data.remove_prefix(static_cast<size_t>(n));
  }
  return {};
}

// Creates a new, uniquely named file in `dir` with `mode` from the first instant (narrowed
// further by the umask, never widened), so a private key is never briefly readable by others.
// O_EXCL refuses leftovers from a crashed run instead of writing through them.
Result<std::pair<int, std::string>> CreateTempFile(const std::filesystem::path& dir,
                                                   const std::string& name, mode_t mode) {
  static std::atomic<unsigned> counter{0};
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string path =
        (dir / ("." + name + ".tmp." + std::to_string(getpid()) + "." + std::to_string(counter++)))
            .string();
    int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    if (fd >= 0) return std::pair{fd, std::move(path)};
    if (errno != EEXIST) return ErrnoFailure("creating " + path, errno);
  }
  return Fail("creating a temporary file in " + dir.string() + ": too many name collisions");
}

// Readers see either the old file or the complete new one: the contents reach the disk
// (fsync) before rename() swaps the name over, and a failed attempt leaves no temp behind.
Status WriteFileAtomically(const std::filesystem::path& dir, const std::string& name,
                           std::string_view contents, mode_t mode) {
  Result<std::pair<int, std::string>> temp = CreateTempFile(dir, name, mode);
  if (!temp) return std::unexpected(temp.error());
  auto [fd, tempPath] = std::move(*temp);
  const std::string target = (dir / name).string();
  Status status = WriteAll(fd, contents, tempPath);
  if (status && fsync(fd) != 0) status = ErrnoFailure("syncing " + tempPath, errno);
  if (close(fd) != 0 && status) status = ErrnoFailure("closing " + tempPath, errno);
  if (status && std::rename(tempPath.c_str(), target.c_str()) != 0) {
    status = ErrnoFailure("renaming " + tempPath + " to " + target, errno);
  }
  if (!status) unlink(tempPath.c_str());
  return status;
}

// Makes the renames themselves durable; without it a crash can lose the new directory entries.
Status SyncDirectory(const std::filesystem::path& dir) {
  int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return ErrnoFailure("opening " + dir.string(), errno);
  Status status = {};
  if (fsync(fd) != 0) status = ErrnoFailure("syncing " + dir.string(), errno);
  close(fd);
  return status;
}

}  // namespace

Status WriteBundle(const CertBundle& bundle, const std::string& dir) {
  if (dir.empty()) return Fail("output directory must not be empty");
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Fail("creating directory " + dir + ": " + ec.message());
  struct File {
    const char* name;
    const std::string& contents;
    mode_t mode;
  } files[] = {
      {"ca.crt", bundle.caCertPem, 0644},
      {"tls.crt", bundle.serverCertPem, 0644},
      {"tls.key", bundle.serverKeyPem, 0600},
  };
  for (const File& file : files) {
    if (Status s = WriteFileAtomically(dir, file.name, file.contents, file.mode); !s) return s;
  }
  if (!bundle.clientCertPem.empty()) {
    const File clientFiles[] = {{"client.crt", bundle.clientCertPem, 0644},
                                {"client.key", bundle.clientKeyPem, 0600}};
    for (const File& file : clientFiles) {
      if (Status s = WriteFileAtomically(dir, file.name, file.contents, file.mode); !s) return s;
    }
  }
  return SyncDirectory(dir);
}

std::string CaBundle(const CertBundle& bundle) { return Base64Encode(bundle.caCertPem); }

}  // namespace gpugate::certs
