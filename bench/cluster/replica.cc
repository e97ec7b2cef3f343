#include "replica.h"

#include <httplib.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ctime>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>
#include <vector>

namespace gpugate::bench {
namespace {

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

pid_t Spawn(const std::vector<std::string>& args, const std::string& logFile) {
  pid_t pid = fork();
  if (pid != 0) return pid;
  FILE* log = fopen(logFile.c_str(), "a");
  if (log) {
    dup2(fileno(log), STDOUT_FILENO);
    dup2(fileno(log), STDERR_FILENO);
  }
  std::vector<char*> argv;
  for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  execv(argv[0], argv.data());
  _exit(127);
}

}  // namespace

Result<std::unique_ptr<Replica>> Replica::Start(const std::string& binary,
                                                const std::string& certDir,
                                                const std::string& config,
                                                const std::string& logFile) {
  std::unique_ptr<Replica> replica(new Replica());
  std::ofstream(logFile, std::ios::trunc).flush();  // never read an earlier run's port
  replica->pid_ =
      Spawn({binary, "serve", "--listen", "127.0.0.1:0", "--tls-cert", certDir + "/tls.crt",
             "--tls-key", certDir + "/tls.key", "--config", config},
            logFile);
  if (replica->pid_ < 0) return Fail("cannot start " + binary);
  static const std::regex kPort(R"("msg":"listening".*"port":(\d+))");
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  std::smatch match;
  while (true) {
    std::string log = ReadAll(logFile);
    if (std::regex_search(log, match, kPort)) break;
    if (!replica->Alive() || std::chrono::steady_clock::now() > deadline) {
      return Fail(binary + " did not start listening; its log:\n" + log);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  replica->port_ = std::stoi(match[1]);
  replica->caFile_ = certDir + "/ca.crt";
  replica->client_ = replica->NewClient();
  return replica;
}

std::unique_ptr<httplib::SSLClient> Replica::NewClient() const {
  auto client = std::make_unique<httplib::SSLClient>("127.0.0.1", port_);
  client->set_ca_cert_path(caFile_.c_str());
  client->enable_server_certificate_verification(true);
  client->set_tcp_nodelay(true);
  client->set_connection_timeout(5, 0);
  client->set_read_timeout(30, 0);
  return client;
}

Status MakeCertificates(const std::string& binary, const std::string& dir) {
  pid_t pid = Spawn({binary, "certs", "--out", dir, "--host", "127.0.0.1"}, dir + "/certs.log");
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
      WEXITSTATUS(status) != 0) {
    return Fail(binary + " certs failed: " + ReadAll(dir + "/certs.log"));
  }
  return {};
}

void WriteClusterConfig(const std::string& dir, int apiPort, const std::string& extraCluster) {
  std::ofstream(dir + "/kubeconfig")
      << "apiVersion: v1\nkind: Config\nclusters:\n- name: standin\n  cluster:\n"
      << "    server: https://127.0.0.1:" << apiPort << "\n"
      << "    certificate-authority: " << dir << "/ca.crt\n"
      << "users:\n- name: gpugate\n  user:\n    token: stand-in-token\n"
      << "contexts:\n- name: standin\n  context: {cluster: standin, user: gpugate}\n"
      << "current-context: standin\n";
  std::ofstream(dir + "/gpugate.yaml")
      << "cluster:\n  enabled: true\n  kubeconfig: " << dir << "/kubeconfig\n"
      << extraCluster;
}

Replica::~Replica() {
  if (pid_ <= 0) return;
  kill(pid_, SIGTERM);
  int status = 0;
  waitpid(pid_, &status, 0);
}

std::optional<std::string> Replica::Get(const std::string& path, int* status) {
  auto res = client_->Get(path);
  if (!res) return std::nullopt;
  if (status) *status = res->status;
  return res->body;
}

bool Replica::Ready() {
  int status = 0;
  return Get("/readyz", &status) && status == 200;
}

bool Replica::Alive() {
  if (pid_ > 0 && waitpid(pid_, nullptr, WNOHANG) != 0) pid_ = -1;
  return pid_ > 0;
}

long Replica::PeakRssBytes() const {
  std::istringstream status(ReadAll("/proc/" + std::to_string(pid_) + "/status"));
  for (std::string line; std::getline(status, line);) {
    if (line.starts_with("VmHWM:")) return std::stol(line.substr(6)) * 1024;  // "NNN kB"
  }
  return 0;
}

std::chrono::duration<double> Replica::CpuTime() const {
  clockid_t clock;
  timespec used;
  if (clock_getcpuclockid(pid_, &clock) == 0 && clock_gettime(clock, &used) == 0) {
    return std::chrono::seconds(used.tv_sec) + std::chrono::nanoseconds(used.tv_nsec);
  }
  // /proc/PID/stat: the command is in parentheses and may hold spaces; utime and stime are the
  // 14th and 15th fields, the 12th and 13th after the closing parenthesis.
  std::string stat = ReadAll("/proc/" + std::to_string(pid_) + "/stat");
  std::istringstream fields(stat.substr(stat.rfind(')') + 2));
  std::string field;
  long ticks = 0;
  for (int i = 3; i <= 15 && fields >> field; ++i) {
    if (i >= 14) ticks += std::stol(field);
  }
  return std::chrono::duration<double>(static_cast<double>(ticks) / sysconf(_SC_CLK_TCK));
}

std::map<pid_t, long> Replica::VoluntarySwitches() const {
  std::map<pid_t, long> out;
  const std::filesystem::path tasks = "/proc/" + std::to_string(pid_) + "/task";
  std::error_code error;
  for (const auto& task : std::filesystem::directory_iterator(tasks, error)) {
    std::istringstream status(ReadAll(task.path() / "status"));
    for (std::string line; std::getline(status, line);) {
      if (!line.starts_with("voluntary_ctxt_switches:")) continue;
      out[std::stoi(task.path().filename())] = std::stol(line.substr(line.find(':') + 1));
    }
  }
  return out;
}

bool Replica::PinTo(int cpu) const {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  bool all = true;
  for (const auto& [tid, switches] : VoluntarySwitches()) {
    all = sched_setaffinity(tid, sizeof set, &set) == 0 && all;
  }
  return all;
}

long SwitchesBetween(const std::map<pid_t, long>& before, const std::map<pid_t, long>& after) {
  long total = 0;
  for (const auto& [tid, count] : after) {
    auto earlier = before.find(tid);
    total += count - (earlier == before.end() ? 0 : earlier->second);
  }
  return total;
}

std::vector<size_t> ParseCounts(const std::string& text) {
  std::vector<size_t> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) out.push_back(std::stoul(item));
  return out;
}

}  // namespace gpugate::bench
