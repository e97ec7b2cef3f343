// Internal to the cluster library: KubeClient's state, shared by kube_client.cc (connections,
// requests) and kube_watch.cc (watch streams).
#pragma once

#include <httplib.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cluster/kube_client.h"
#include "cluster/tls_material.h"

namespace gpugate::cluster {

// What one request may spend: the request timeout, cut to what is left before the caller's
// deadline. Measured on the client's one clock (KubeClient::Impl's), which also measures
// idleness, so a test that moves the clock moves both.
struct RequestBudget {
  std::chrono::milliseconds timeout;
  Deadline deadline = kNoDeadline;

  bool bounded() const { return deadline != kNoDeadline; }
  // The time left at `now`: the timeout, or less when the deadline is nearer; <= 0: none.
  std::chrono::milliseconds Left(std::chrono::steady_clock::time_point now) const {
    if (!bounded()) return timeout;
    return std::min(timeout, std::chrono::ceil<std::chrono::milliseconds>(deadline - now));
  }
};

// The whole client behind KubeClient's interface: parsed TLS material, the token and the pool of
// idle connections for requests. An httplib client serves one
// request at a time: a thread takes one (Acquire) and gives it back (Release), or owns one for a
// whole watch.
struct KubeClient::Impl {
  explicit Impl(const KubeConfig& config);

  // A client with TLS, timeouts and socket options set; not in the pool.
  Result<std::unique_ptr<httplib::SSLClient>> NewClient(std::chrono::milliseconds timeout) const;
  // An idle client from the pool (`reused`), or a new one. Clients idle longer than idleLimit are
  // closed here, never handed out.
  struct Taken {
    std::unique_ptr<httplib::SSLClient> client;
    bool reused = false;
  };
  Result<Taken> Acquire(std::chrono::milliseconds timeout);
  void Release(std::unique_ptr<httplib::SSLClient> client);
  // Accept and, when there is a token, Authorization.
  Result<httplib::Headers> RequestHeaders();
  // Bounded by `budget` (KubeClient::Request).
  Result<HttpResult> Send(const std::string& method, const std::string& path,
                          const std::string* body, const RequestBudget& budget);
  // One try on `client`; sets `answerBegan` when any of the answer arrived.
  httplib::Result SendOn(httplib::SSLClient& client, const std::string& method,
                         const std::string& path, const httplib::Headers& headers,
                         const std::string* body, bool& answerBegan);
  std::string Url(const std::string& path) const;
  // The client's one clock: `clock`, or steady_clock.
  std::chrono::steady_clock::time_point Now() const;

  // Call before a request: forgets the thread's last TLS failure, so Describe reports this one,
  // and whether an answer began to arrive (AnswerBegan).
  static void BeginRequest();
  // Whether the server sent any application data (an answer's first byte) to this thread since
  // BeginRequest. A close_notify or a TLS 1.3 session ticket is not an answer.
  static bool AnswerBegan();
  // A failed request's reason, with the certificate check's complaint for TLS failures.
  static std::string Describe(httplib::Error error);

  const KubeConfig& config;
  std::string dialName;    // what httplib connects to, sends as SNI and we verify
  std::string setupError;  // why caPem or the client certificate cannot be used
  std::vector<X509Ptr> caCerts;
  std::vector<X509Ptr> clientChain;  // leaf first
  PkeyPtr clientKey;

  std::chrono::milliseconds idleLimit = std::chrono::seconds(60);  // set before the first request
  std::function<std::chrono::steady_clock::time_point()> clock;    // null: steady_clock
  std::atomic<int> retries{0};

  struct IdleClient {
    std::unique_ptr<httplib::SSLClient> client;
    std::chrono::steady_clock::time_point since;  // when it was given back
  };
  std::mutex mu;
  std::vector<IdleClient> idle;  // guarded by mu; oldest first

  std::mutex tokenMu;
  std::string fileToken;     // guarded by tokenMu
  struct stat tokenStat {};  // guarded by tokenMu; the file fileToken was read from

 private:
  void ConfigureTls(httplib::SSLClient& client) const;
  static void SetTimeouts(httplib::SSLClient& client, std::chrono::milliseconds timeout);
};

}  // namespace gpugate::cluster
