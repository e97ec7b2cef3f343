#include "bench/load/httplib_tuning.h"

#include <httplib.h>
#include <sys/socket.h>

#include <atomic>
#include <chrono>

namespace gpugate::bench {
namespace {

// httplib owns (and deletes) the task queue it gets from new_task_queue; the pool must outlive
// it so its stats stay readable, so httplib gets this handle, which shares the pool.
class PoolHandle final : public httplib::TaskQueue {
 public:
  explicit PoolHandle(std::shared_ptr<transport::WorkerPool> pool) : pool_(std::move(pool)) {}
  void enqueue(std::function<void()> fn) override { pool_->Enqueue(std::move(fn)); }
  void shutdown() override { pool_->Shutdown(); }

 private:
  std::shared_ptr<transport::WorkerPool> pool_;
};

}  // namespace

std::shared_ptr<transport::WorkerPool> ApplyTuning(httplib::Server& server,
                                                   const HttplibTuning& tuning) {
  const transport::Tuning& t = tuning.server;
  server.set_tcp_nodelay(true);  // no 40 ms Nagle/delayed-ACK stall between headers and body
  server.set_keep_alive_max_count(t.keepAliveMaxRequests);
  // cpp-httplib keeps idle connections for whole seconds; round up, so it never closes sooner.
  server.set_keep_alive_timeout(std::chrono::ceil<std::chrono::seconds>(t.keepAliveIdle).count());
  server.set_read_timeout(tuning.readTimeout);
  server.set_write_timeout(t.writeTimeout);
  server.set_payload_max_length(t.maxBodyBytes);  // larger bodies get 413 unread

  // httplib hard-codes listen(fd, 5) and offers no hook after bind, but it asks for its task
  // queue after binding and before accepting: the listening socket, remembered here, gets its
  // real backlog then (Linux applies a second listen() to a listening socket as a new backlog).
  auto listenFd = std::make_shared<std::atomic<int>>(-1);
  server.set_socket_options([listenFd](int fd) {
    httplib::default_socket_options(fd);  // what httplib would have set (SO_REUSEPORT)
    listenFd->store(fd);
  });
  auto pool = std::make_shared<transport::WorkerPool>(tuning.workers);
  server.new_task_queue = [pool, listenFd, backlog = t.listenBacklog] {
    if (int fd = listenFd->load(); fd >= 0) ::listen(fd, backlog);
    return new PoolHandle(pool);
  };
  return pool;
}

}  // namespace gpugate::bench
