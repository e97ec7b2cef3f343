// Watch streams: one httplib client per stream, owned by the watching thread for the stream's
// life and armed on the watch's stop token so WatchStop::Stop() can cut it from another thread.
//
// httplib's stop() shuts the socket down only once a request is in flight; a stop() that lands
// while the client is still connecting does nothing. So the token is also checked when the
// response headers arrive and on every chunk, and a watch can only start before it is stopped.
#include <openssl/err.h>

#include "cluster/kube_client.h"
#include "cluster/kube_client_impl.h"
#include "cluster/line_splitter.h"

namespace gpugate::cluster {
namespace {

// Runs `fn` when the scope ends, however it ends.
template <typename F>
class ScopeExit {
 public:
  explicit ScopeExit(F fn) : fn_(std::move(fn)) {}
  ~ScopeExit() { fn_(); }
  ScopeExit(const ScopeExit&) = delete;
  ScopeExit& operator=(const ScopeExit&) = delete;

 private:
  F fn_;
};

}  // namespace

Result<int> KubeClient::Watch(const std::string& path, WatchStop& stop,
                              const std::function<bool(std::string_view)>& onLine,
                              int idleTimeoutSeconds, const std::function<void()>& onOpen) {
  Impl& pool = *impl_;
  auto fail = [&](const std::string& why) { return Fail("watch " + pool.Url(path) + ": " + why); };
  auto headers = pool.RequestHeaders();
  if (!headers) return fail(headers.error().message);
  auto made = pool.NewClient(requestTimeout_);
  if (!made) return fail(made.error().message);
  std::unique_ptr<httplib::SSLClient> client = std::move(*made);
  client->set_read_timeout(idleTimeoutSeconds);
  // May wait in Stop() for a client that is still connecting (bounded by the connection timeout).
  uint64_t armed = stop.Arm([raw = client.get()] { raw->stop(); });
  if (armed == 0) return fail("canceled");
  ScopeExit disarm([&] { stop.Disarm(armed); });

  int status = 0;
  LineSplitter lines(onLine);
  bool tooLong = false;
  auto onHeaders = [&](const httplib::Response& response) {
    status = response.status;
    if (stop.stopped()) return false;
    if (status == 200 && onOpen) onOpen();
    return true;
  };
  auto onChunk = [&](const char* data, size_t size) {
    if (stop.stopped()) return false;
    if (status != 200) return true;  // a Status object; the caller acts on the code alone
    if (lines.Feed(std::string_view(data, size))) return true;
    tooLong = !lines.stopped();
    return false;
  };
  Impl::BeginRequest();
  httplib::Result res = client->Get(path, *headers, onHeaders, onChunk);

  if (lines.stopped()) return status;  // the caller ended it
  if (stop.stopped()) return fail("canceled");
  if (tooLong) {
    return fail("an event is longer than " + std::to_string(LineSplitter::kMaxLineBytes) +
                " bytes");
  }
  if (!res) return fail(Impl::Describe(res.error()));
  if (status == 200) lines.Finish();  // a last line without "\n" is whole: the stream ended cleanly
  return res->status;
}

}  // namespace gpugate::cluster
