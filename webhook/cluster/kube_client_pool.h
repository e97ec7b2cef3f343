// Internal to the cluster library: KubeClient's state, shared by kube_client.cc (connections,
// requests) and kube_watch.cc (watch streams).
#pragma once

#include <httplib.h>
#include <sys/stat.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "cluster/kube_client.h"
#include "cluster/tls_material.h"

namespace gpugate::cluster {

// Parsed TLS material, the token, idle clients for requests and the clients of open watches.
// An httplib client serves one request at a time: a thread takes one (Acquire) and gives it
// back (Release), or owns one for a whole watch.
struct KubeClient::Pool {
  explicit Pool(const KubeConfig& config);

  // A client with TLS, timeouts and socket options set; not in the pool.
  Result<std::unique_ptr<httplib::SSLClient>> NewClient(int timeoutSeconds) const;
  Result<std::unique_ptr<httplib::SSLClient>> Acquire(int timeoutSeconds);
  void Release(std::unique_ptr<httplib::SSLClient> client);
  // Accept and, when there is a token, Authorization.
  Result<httplib::Headers> RequestHeaders();
  Result<HttpResult> Send(const std::string& method, const std::string& path,
                          const std::string* body, int timeoutSeconds);
  std::string Url(const std::string& path) const;

  // Call before a request: forgets the thread's last TLS failure, so Describe reports this one.
  static void BeginRequest();
  // A failed request's reason, with the certificate check's complaint for TLS failures.
  static std::string Describe(httplib::Error error);

  const KubeConfig& config;
  std::string dialName;    // what httplib connects to, sends as SNI and we verify
  std::string setupError;  // why caPem or the client certificate cannot be used
  std::vector<X509Ptr> caCerts;
  std::vector<X509Ptr> clientChain;  // leaf first
  PkeyPtr clientKey;

  std::mutex mu;
  std::vector<std::unique_ptr<httplib::SSLClient>> idle;  // guarded by mu
  std::set<httplib::SSLClient*> watches;                  // guarded by mu
  std::atomic<bool> watchesCanceled{false};

  std::mutex tokenMu;
  std::string fileToken;     // guarded by tokenMu
  struct stat tokenStat {};  // guarded by tokenMu; the file fileToken was read from

 private:
  void ConfigureTls(httplib::SSLClient& client) const;
};

}  // namespace gpugate::cluster
