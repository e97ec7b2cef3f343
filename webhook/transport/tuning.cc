#include "transport/tuning.h"

#include <httplib.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <chrono>

namespace gpugate::transport {
namespace {

// httplib owns (and deletes) the task queue it gets from new_task_queue; the pool must outlive
// it so its stats stay readable, so httplib gets this handle, which shares the pool.
class PoolHandle final : public httplib::TaskQueue {
 public:
  explicit PoolHandle(std::shared_ptr<WorkerPool> pool) : pool_(std::move(pool)) {}
  void enqueue(std::function<void()> fn) override { pool_->Enqueue(std::move(fn)); }
  void shutdown() override { pool_->Shutdown(); }

 private:
  std::shared_ptr<WorkerPool> pool_;
};

}  // namespace

size_t AvailableCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 1;
  int n = CPU_COUNT(&set);
  return n > 0 ? static_cast<size_t>(n) : 1;
}

size_t RaiseOpenFileLimit(size_t wanted) {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return 0;
  if (limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur < wanted) {
    rlim_t raised =
        limit.rlim_max == RLIM_INFINITY ? wanted : std::min<rlim_t>(limit.rlim_max, wanted);
    if (raised > limit.rlim_cur) {
      rlimit next{raised, limit.rlim_max};
      if (setrlimit(RLIMIT_NOFILE, &next) == 0) limit.rlim_cur = raised;
    }
  }
  return limit.rlim_cur == RLIM_INFINITY ? wanted : static_cast<size_t>(limit.rlim_cur);
}

std::shared_ptr<WorkerPool> ApplyTuning(httplib::Server& server, const Tuning& tuning) {
  server.set_tcp_nodelay(true);  // no 40 ms Nagle/delayed-ACK stall between headers and body
  server.set_keep_alive_max_count(tuning.keepAliveMaxRequests);
  // cpp-httplib keeps idle connections for whole seconds; round up, so it never closes sooner.
  server.set_keep_alive_timeout(
      std::chrono::ceil<std::chrono::seconds>(tuning.keepAliveIdle).count());
  server.set_read_timeout(tuning.readTimeout);
  server.set_write_timeout(tuning.writeTimeout);
  server.set_payload_max_length(tuning.maxBodyBytes);  // larger bodies get 413 unread

  // httplib hard-codes listen(fd, 5) and offers no hook after bind, but it asks for its task
  // queue after binding and before accepting: the listening socket, remembered here, gets its
  // real backlog then (Linux applies a second listen() to a listening socket as a new backlog).
  auto listenFd = std::make_shared<std::atomic<int>>(-1);
  server.set_socket_options([listenFd](int fd) {
    httplib::default_socket_options(fd);  // what httplib would have set (SO_REUSEPORT)
    listenFd->store(fd);
  });
  auto pool = std::make_shared<WorkerPool>(tuning.workers);
  server.new_task_queue = [pool, listenFd, backlog = tuning.listenBacklog] {
    if (int fd = listenFd->load(); fd >= 0) ::listen(fd, backlog);
    return new PoolHandle(pool);
  };
  return pool;
}

}  // namespace gpugate::transport
