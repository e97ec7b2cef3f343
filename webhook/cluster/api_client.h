// The port through which the cluster layer talks to the Kubernetes API: get an object or a list
// page, write (POST, PUT, DELETE), and watch a collection until a stop token says stop. Two
// implementations: KubeClient (kube_client.h), pooled HTTPS to a real API server, and the
// stand-in's in-memory client for unit tests (tests/standin/standin.h, InMemoryClient), which
// calls the stand-in's handlers without a socket. Cluster logic (informers, the ledger, the
// namespace watch, lists) sees only this interface, so it is tested in memory; only the wire
// (TLS, connections, the pool) needs the stand-in's HTTPS.
//
// Thread-safety: every method may be called from any thread at once.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

#include "common/deadline.h"
#include "common/result.h"

namespace gpugate::cluster {

struct HttpResult {
  int status = 0;          // HTTP status code
  std::string body;        // response body (a Kubernetes Status object on most errors)
  std::string retryAfter;  // the Retry-After header (429, 503), or empty
};

// Ends watches from another thread: Stop() cuts every watch started with this token, and any
// watch started with it later returns at once. One per watcher (an informer), so stopping one
// watcher never ends another's streams on a shared client.
//
// Thread-safe. Stop() holds the token's lock while it runs the cuts, so a watch that Disarms
// after its stream ended never has its cut run on a client it has already dropped.
class WatchStop {
 public:
  void Stop();
  bool stopped() const;
  // Makes a stopped token usable again, for a watcher that restarts. Only while no watch uses it.
  void Reset();

  // For ApiClient implementations: `cut` ends one stream in progress and is run by Stop().
  // Returns 0 (nothing armed) when the token is stopped already; else an id for Disarm.
  [[nodiscard]] uint64_t Arm(std::function<void()> cut);
  void Disarm(uint64_t id);

 private:
  std::mutex mu_;
  std::atomic<bool> stopped_{false};  // written under mu_; read without it on every chunk
  uint64_t nextId_ = 1;               // guarded by mu_
  std::map<uint64_t, std::function<void()>> cuts_;  // guarded by mu_
};

class ApiClient {
 public:
  // When a request must have its answer (common/deadline.h); kNoDeadline: the client's request
  // timeout alone.
  using Deadline = gpugate::Deadline;
  enum class Method { kGet, kPost, kPut, kDelete };

  virtual ~ApiClient() = default;

  // One request; `body` is JSON text for POST and PUT, ignored otherwise. An error means no
  // HTTP answer at all (connection refused, TLS failure, timeout, the deadline passed before it
  // was sent); an HTTP error status (404, 409, 410, 5xx...) is a successful HttpResult.
  virtual Result<HttpResult> Request(Method method, const std::string& path,
                                     const std::string& body, Deadline deadline) = 0;

  // Opens `path` (which carries ?watch=1...) and calls `onLine` for every newline-terminated
  // line of the stream (one watch event each) until the server ends the stream, `onLine`
  // returns false, or `stop` is stopped. Returns the HTTP status (200 for a stream that ended
  // normally, or ended by `onLine`). A stream silent for `idleTimeoutSeconds` (no event, no
  // bookmark) is considered broken. `onOpen`, if given, runs once the server has accepted the
  // watch (HTTP 200), before the first line. A stream cut short, a timeout or a stop is an error
  // (a stop's ends with ": canceled"). The body of a non-200 answer is not passed to onLine.
  virtual Result<int> Watch(const std::string& path, WatchStop& stop,
                            const std::function<bool(std::string_view)>& onLine,
                            int idleTimeoutSeconds = 90,
                            const std::function<void()>& onOpen = nullptr) = 0;

  // A GET serves an object and a list page alike (a list page is a GET of a collection with
  // ?limit= and ?continue=).
  Result<HttpResult> Get(const std::string& path, Deadline deadline = kNoDeadline) {
    return Request(Method::kGet, path, {}, deadline);
  }
  Result<HttpResult> Post(const std::string& path, const std::string& jsonBody,
                          Deadline deadline = kNoDeadline) {
    return Request(Method::kPost, path, jsonBody, deadline);
  }
  Result<HttpResult> Put(const std::string& path, const std::string& jsonBody,
                         Deadline deadline = kNoDeadline) {
    return Request(Method::kPut, path, jsonBody, deadline);
  }
  Result<HttpResult> Delete(const std::string& path, Deadline deadline = kNoDeadline) {
    return Request(Method::kDelete, path, {}, deadline);
  }
};

// "GET", "POST", "PUT", "DELETE".
std::string_view MethodName(ApiClient::Method method);

}  // namespace gpugate::cluster
