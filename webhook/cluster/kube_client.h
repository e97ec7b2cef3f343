// The Kubernetes API client over TLS (cpp-httplib), the ApiClient (api_client.h) gpugate runs
// with: JSON in, JSON text out, status codes as values, and watch streams read line by line
// without blocking anyone else.
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

#include "cluster/api_client.h"
#include "cluster/kube_config.h"
#include "common/result.h"

namespace gpugate::cluster {

class KubeClient final : public ApiClient {
 public:
  explicit KubeClient(KubeConfig config);
  ~KubeClient() override;

  // Each request is bounded by the request timeout and by `deadline`, whichever comes first:
  // connecting, sending and waiting for the answer each get at most the time left when the
  // request starts (cpp-httplib's timeouts are per step). A request whose deadline has passed
  // is not sent (an error that says so).
  Result<HttpResult> Request(Method method, const std::string& path, const std::string& body,
                             Deadline deadline) override;

  // Each watch has an httplib client of its own for the stream's life; the read timeout is
  // `idleTimeoutSeconds`.
  Result<int> Watch(const std::string& path, WatchStop& stop,
                    const std::function<bool(std::string_view)>& onLine,
                    int idleTimeoutSeconds = 90,
                    const std::function<void()>& onOpen = nullptr) override;

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
