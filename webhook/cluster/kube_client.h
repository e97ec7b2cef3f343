// A small Kubernetes API client over TLS (cpp-httplib): JSON in, JSON text out, status codes as
// values, and watch streams read line by line without blocking anyone else.
//
// Thread-safety: every method may be called from any thread; each request takes a connection from
// a small pool (cpp-httplib clients are not safe for concurrent use), so admission threads never
// wait on a watch.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/kube_config.h"
#include "common/result.h"

namespace gpugate::cluster {

struct HttpResult {
  int status = 0;          // HTTP status code
  std::string body;        // response body (a Kubernetes Status object on most errors)
  std::string retryAfter;  // the Retry-After header (429, 503), or empty
};

class KubeClient {
 public:
  // When a request must have its answer; kNoDeadline: the request timeout alone bounds it.
  using Deadline = std::chrono::steady_clock::time_point;
  static constexpr Deadline kNoDeadline = Deadline::max();

  explicit KubeClient(KubeConfig config);
  ~KubeClient();

  // An error means no HTTP answer at all (connection refused, TLS failure, timeout); an HTTP
  // error status (404, 409, 410, 5xx...) is a successful HttpResult.
  //
  // Each request is bounded by the request timeout and by `deadline`, whichever comes first:
  // connecting, sending and waiting for the answer each get at most the time left when the
  // request starts (cpp-httplib's timeouts are per step). A request whose deadline has passed
  // is not sent (an error that says so).
  Result<HttpResult> Get(const std::string& path, Deadline deadline = kNoDeadline);
  Result<HttpResult> Post(const std::string& path, const std::string& jsonBody,
                          Deadline deadline = kNoDeadline);
  Result<HttpResult> Put(const std::string& path, const std::string& jsonBody,
                         Deadline deadline = kNoDeadline);
  Result<HttpResult> Delete(const std::string& path, Deadline deadline = kNoDeadline);

  // Opens `path` (which carries ?watch=1...) and calls `onLine` for every newline-terminated line
  // of the chunked stream (one watch event each) until the server ends the stream, `onLine`
  // returns false, or CancelWatches() is called. Returns the HTTP status (200 for a stream that
  // ended normally, or ended by `onLine`). The read timeout is `idleTimeoutSeconds`: a stream
  // silent that long (no event, no bookmark) is considered broken. `onOpen`, if given, runs once
  // the server has accepted the watch (HTTP 200), before the first line. A stream cut short, a
  // timeout or CancelWatches() is an error. The body of a non-200 answer is not passed to onLine.
  Result<int> Watch(const std::string& path, const std::function<bool(std::string_view)>& onLine,
                    int idleTimeoutSeconds = 90, const std::function<void()>& onOpen = nullptr);

  // Ends every watch in progress (for shutdown); later Watch calls return at once.
  void CancelWatches();

  // Per-request timeout for Get/Post/Put/Delete.
  void set_request_timeout(std::chrono::milliseconds timeout) { requestTimeout_ = timeout; }

  // A kept-alive connection idle this long is closed instead of reused: kube-apiserver closes
  // connections idle for 90 s (Go's http.Server IdleTimeout), so the default stays below that.
  // Call before the first request.
  void set_idle_limit(std::chrono::milliseconds limit);
  // What measures idleness; a test moves it by hand. Default: std::chrono::steady_clock.
  // Call before the first request.
  void set_clock(std::function<std::chrono::steady_clock::time_point()> clock);

  // Requests sent a second time, on a new connection, because a reused connection failed
  // before any of the answer arrived (docs/cluster.md, "Connections the API server closed").
  int retries() const;

 private:
  struct Impl;
  KubeConfig config_;
  std::chrono::milliseconds requestTimeout_{10'000};
  std::unique_ptr<Impl> impl_;
};

}  // namespace gpugate::cluster
