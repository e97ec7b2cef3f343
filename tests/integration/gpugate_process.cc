#include "gpugate_process.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "test_paths.h"

extern char** environ;

namespace gpugate::testing {
namespace {

// Spawns `program` (argv[0] is the program itself) with stdout and stderr on a pipe; returns the
// pid and read end.
std::pair<pid_t, int> Spawn(const std::string& program, const std::vector<std::string>& args) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return {-1, -1};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
  std::vector<std::string> argv = {program};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> cargs;
  for (auto& a : argv) cargs.push_back(a.data());
  cargs.push_back(nullptr);
  pid_t pid = -1;
  int rc = posix_spawn(&pid, program.c_str(), &actions, nullptr, cargs.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    return {-1, -1};
  }
  return {pid, fds[0]};
}

int WaitExit(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Under `make test-sanitize` a sanitizer report in a gpugate child aborts it (the options in
// tests/CMakeLists.txt), which a test sees only if it checks that child's exit. Every report ends
// with a SUMMARY line, so any output holding one fails the current test, with the report shown.
void ExpectNoSanitizerReport(const std::string& output) {
  for (const char* summary :
       {"SUMMARY: AddressSanitizer:", "SUMMARY: LeakSanitizer:",
        "SUMMARY: UndefinedBehaviorSanitizer:", "SUMMARY: ThreadSanitizer:"}) {
    size_t at = output.find(summary);
    if (at == std::string::npos) continue;
    size_t end = output.find('\n', at);
    size_t begin = at > 16384 ? at - 16384 : 0;
    ADD_FAILURE() << "a sanitizer reported an error in gpugate:\n"
                  << output.substr(begin, end == std::string::npos ? end : end - begin);
    return;
  }
}

}  // namespace

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot read " << path;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Exit RunGpugate(const std::vector<std::string>& args) { return RunProgram(GPUGATE_BINARY, args); }

Exit RunProgram(const std::string& program, const std::vector<std::string>& args) {
  auto [pid, fd] = Spawn(program, args);
  Exit result;
  if (pid < 0) return result;
  char buf[4096];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0) result.output.append(buf, n);
  close(fd);
  result.code = WaitExit(pid);
  ExpectNoSanitizerReport(result.output);
  return result;
}

GpugateServer::GpugateServer(std::vector<std::string> extraArgs) {
  // Tests kill servers mid-request; writing to the dead connection must fail, not kill the test.
  signal(SIGPIPE, SIG_IGN);
  Exit certs = RunGpugate({"certs", "--out", dir_.path(), "--host", "127.0.0.1"});
  EXPECT_EQ(certs.code, 0) << certs.output;
  caFile_ = dir_.File("ca.crt");
  std::vector<std::string> args = {
      "serve",     "--listen",          "127.0.0.1:0", "--tls-cert", dir_.File("tls.crt"),
      "--tls-key", dir_.File("tls.key")};
  args.insert(args.end(), extraArgs.begin(), extraArgs.end());
  auto [pid, fd] = Spawn(GPUGATE_BINARY, args);
  pid_ = pid;
  EXPECT_GT(pid_, 0) << "cannot start " << GPUGATE_BINARY;
  drain_ = std::thread([this, fd = fd] {
    char buf[4096];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0) {
      std::lock_guard lock(mu_);
      logs_.append(buf, n);
      grew_.notify_all();
    }
    close(fd);
    std::lock_guard lock(mu_);
    eof_ = true;
    grew_.notify_all();
  });
  WaitForLog("\"msg\":\"listening\"", std::chrono::seconds(10));
  std::string logs = Logs();
  std::smatch m;
  static const std::regex kPort(R"("msg":"listening".*"port":(\d+))");
  if (std::regex_search(logs, m, kPort)) port_ = std::stoi(m[1]);
  EXPECT_GT(port_, 0) << "server did not report its port; logs:\n" << logs;
}

GpugateServer::~GpugateServer() {
  // A server the test left running must still stop cleanly; killed or stopped servers were
  // reaped already and their exit status was the test's to check.
  int code = pid_ > 0 ? Stop() : 0;
  if (drain_.joinable()) drain_.join();
  std::string logs = Logs();
  EXPECT_EQ(code, 0) << "gpugate serve did not exit cleanly on SIGTERM; its output ends:\n"
                     << logs.substr(logs.size() > 4096 ? logs.size() - 4096 : 0);
  ExpectNoSanitizerReport(logs);
}

bool GpugateServer::WaitForLog(const std::string& needle, std::chrono::milliseconds timeout) {
  // The line must have arrived whole: a batch of log lines larger than a pipe's atomic write
  // may reach the drain in two reads, and a test that finds the message then reads the line's
  // other fields.
  auto wholeLine = [&] {
    const size_t at = logs_.find(needle);
    return at != std::string::npos && logs_.find('\n', at) != std::string::npos;
  };
  std::unique_lock lock(mu_);
  return grew_.wait_for(lock, timeout, [&] { return wholeLine() || eof_; }) && wholeLine();
}

std::string GpugateServer::Logs() {
  std::lock_guard lock(mu_);
  return logs_;
}

std::unique_ptr<httplib::SSLClient> GpugateServer::Client() const {
  auto client = std::make_unique<httplib::SSLClient>("127.0.0.1", port_);
  client->set_ca_cert_path(caFile_.c_str());
  client->enable_server_certificate_verification(true);
  // cpp-httplib writes a POST's headers and body separately; without this the body waits for
  // the headers' delayed ACK, 40 ms a request.
  client->set_tcp_nodelay(true);
  client->set_connection_timeout(5, 0);
  client->set_read_timeout(10, 0);
  return client;
}

void GpugateServer::Kill() {
  if (pid_ <= 0) return;
  kill(pid_, SIGKILL);
  WaitExit(pid_);
  pid_ = -1;
  WaitForOutputEnd();
}

void GpugateServer::Terminate() {
  if (pid_ <= 0 || terminated_) return;
  kill(pid_, SIGTERM);
  terminated_ = true;
}

int GpugateServer::Stop() {
  if (pid_ <= 0) return -1;
  if (!terminated_) kill(pid_, SIGTERM);
  int code = WaitExit(pid_);
  pid_ = -1;
  WaitForOutputEnd();
  return code;
}

void GpugateServer::WaitForOutputEnd() {
  // The pipe is O_CLOEXEC in the test, so the child was its only writer: its end comes at once.
  std::unique_lock lock(mu_);
  grew_.wait_for(lock, std::chrono::seconds(10), [&] { return eof_; });
}

}  // namespace gpugate::testing
