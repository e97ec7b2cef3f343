#include "cluster/replica.h"

#include <fcntl.h>
#include <httplib.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace gpugate::bench {
namespace {

using Clock = std::chrono::steady_clock;

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream out;
  out << in.rdbuf();
  return out.str();
}

void WriteFile(const std::string& path, const std::string& content) {
  std::ofstream(path) << content;
}

// Runs `program args...` with its output in `logFile`; returns the child's pid.
pid_t Spawn(const std::string& program, const std::vector<std::string>& args,
            const std::string& logFile) {
  pid_t pid = fork();
  if (pid != 0) return pid;
  int fd = open(logFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  dup2(fd, 1);
  dup2(fd, 2);
  std::vector<char*> argv{const_cast<char*>(program.c_str())};
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  execv(program.c_str(), argv.data());
  _exit(127);
}

int Run(const std::string& program, const std::vector<std::string>& args,
        const std::string& logFile) {
  pid_t pid = Spawn(program, args, logFile);
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

ClusterFiles::ClusterFiles(const std::string& gpugate, const std::string& extraCluster)
    : gpugate_(gpugate) {
  char pattern[] = "/tmp/gpugate-bench-XXXXXX";
  if (!mkdtemp(pattern)) throw std::runtime_error("mkdtemp failed");
  dir_ = pattern;
  if (Run(gpugate_, {"certs", "--out", dir_, "--host", "127.0.0.1"}, File("certs.log")) != 0) {
    throw std::runtime_error(gpugate_ + " certs failed: " + ReadAll(File("certs.log")));
  }
  WriteFile(File("gpugate.yaml"),
            "cluster:\n  enabled: true\n  kubeconfig: " + File("kubeconfig") + "\n" + extraCluster);
}

ClusterFiles::~ClusterFiles() { std::filesystem::remove_all(dir_); }

void ClusterFiles::PointAt(int apiPort) const {
  WriteFile(File("kubeconfig"),
            "apiVersion: v1\nkind: Config\nclusters:\n- name: standin\n  cluster:\n"
            "    server: https://127.0.0.1:" +
                std::to_string(apiPort) + "\n    certificate-authority: " + File("ca.crt") +
                "\nusers:\n- name: gpugate\n  user:\n    token: stand-in-token\n"
                "contexts:\n- name: standin\n  context: {cluster: standin, user: gpugate}\n"
                "current-context: standin\n");
}

Replica::Replica(const ClusterFiles& files) : caFile_(files.File("ca.crt")) {
  signal(SIGPIPE, SIG_IGN);
  static int counter = 0;
  std::string log = files.File("replica-" + std::to_string(counter++) + ".log");
  pid_ = Spawn(files.gpugate(),
               {"serve", "--listen", "127.0.0.1:0", "--tls-cert", files.File("tls.crt"),
                "--tls-key", files.File("tls.key"), "--config", files.File("gpugate.yaml")},
               log);
  static const std::regex kPort(R"("msg":"listening".*"port":(\d+))");
  for (auto limit = Clock::now() + std::chrono::seconds(30); Clock::now() < limit;) {
    std::smatch m;
    std::string logs = ReadAll(log);
    if (std::regex_search(logs, m, kPort)) {
      port_ = std::stoi(m[1]);
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  throw std::runtime_error("the replica never reported listening: " + ReadAll(log));
}

Replica::~Replica() {
  if (pid_ <= 0) return;
  kill(pid_, SIGTERM);
  for (auto limit = Clock::now() + std::chrono::seconds(10); Clock::now() < limit;) {
    if (waitpid(pid_, nullptr, WNOHANG) == pid_) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  kill(pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
}

std::unique_ptr<httplib::SSLClient> Replica::Client() const {
  auto client = std::make_unique<httplib::SSLClient>("127.0.0.1", port_);
  client->set_ca_cert_path(caFile_.c_str());
  client->enable_server_certificate_verification(true);
  client->set_tcp_nodelay(true);
  client->set_keep_alive(true);
  client->set_read_timeout(std::chrono::seconds(30));
  return client;
}

std::chrono::milliseconds Replica::WaitReady(std::chrono::milliseconds limit) const {
  auto start = Clock::now();
  auto client = Client();
  while (Clock::now() - start < limit) {
    auto res = client->Get("/readyz");
    if (res && res->status == 200) {
      return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return std::chrono::milliseconds(-1);
}

std::chrono::milliseconds Replica::CpuTime() const {
  std::string stat = ReadAll("/proc/" + std::to_string(pid_) + "/stat");
  // Fields after the command's closing parenthesis; utime and stime are the 12th and 13th.
  std::istringstream rest(stat.substr(stat.rfind(')') + 2));
  std::string field;
  long utime = 0, stime = 0;
  for (int i = 1; i <= 13 && rest >> field; ++i) {
    if (i == 12) utime = std::stol(field);
    if (i == 13) stime = std::stol(field);
  }
  return std::chrono::milliseconds((utime + stime) * 1000 / sysconf(_SC_CLK_TCK));
}

long Replica::PeakRssKib() const {
  std::istringstream status(ReadAll("/proc/" + std::to_string(pid_) + "/status"));
  for (std::string line; std::getline(status, line);) {
    if (line.starts_with("VmHWM:")) return std::stol(line.substr(6));
  }
  return -1;
}

}  // namespace gpugate::bench
