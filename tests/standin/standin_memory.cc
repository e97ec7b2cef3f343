// The stand-in reached in memory: a cluster::ApiClient whose requests are httplib::Request
// values handed to the same handlers HTTPS routes to (StandInApiServer::Impl::Serve), and whose
// answers are read from the httplib::Response those fill in, content providers included.
#include <string_view>

#include "cluster/line_splitter.h"
#include "standin/standin_impl.h"

namespace gpugate::testing {
namespace {

using cluster::ApiClient;
using cluster::HttpResult;

class InMemoryApiClient final : public ApiClient {
 public:
  InMemoryApiClient(StandInApiServer::Impl& server, std::string token)
      : server_(server), token_(std::move(token)) {}

  Result<HttpResult> Request(Method method, const std::string& path, const std::string& body,
                             Deadline deadline) override {
    auto fail = [&](const std::string& why) {
      return Fail(std::string(cluster::MethodName(method)) + " " + path + ": " + why);
    };
    if (deadline != kNoDeadline && std::chrono::steady_clock::now() >= deadline) {
      return fail("not sent: no time left");
    }
    if (server_.stopped) return fail("cannot connect");
    httplib::Request req = NewRequest(cluster::MethodName(method), path);
    if (method == Method::kPost || method == Method::kPut) req.body = body;
    httplib::Response res;
    if (server_.Authorized(req, res)) server_.Serve(req, res, nullptr);
    if (res.status == -1) res.status = 200;  // as httplib's server answers a routed request
    std::string text = res.body;
    if (res.content_provider_) {
      httplib::DataSink sink;
      sink.write = [&](const char* data, size_t size) {
        text.append(data, size);
        return true;
      };
      sink.is_writable = [] { return true; };
      for (size_t offset = 0; offset < res.content_length_;) {
        size_t before = text.size();
        if (!res.content_provider_(offset, res.content_length_ - offset, sink)) {
          return fail("connection lost or timed out while reading");  // cut mid-answer
        }
        offset += text.size() - before;
      }
    }
    return HttpResult{res.status, std::move(text), res.get_header_value("Retry-After")};
  }

  Result<int> Watch(const std::string& path, cluster::WatchStop& stop,
                    const std::function<bool(std::string_view)>& onLine, int,
                    const std::function<void()>& onOpen) override {
    auto fail = [&](const std::string& why) { return Fail("watch " + path + ": " + why); };
    if (server_.stopped) return fail("cannot connect");
    uint64_t armed = stop.Arm([this] { server_.store.Wake(); });
    if (armed == 0) return fail("canceled");
    struct Disarm {
      cluster::WatchStop& stop;
      uint64_t id;
      ~Disarm() { stop.Disarm(id); }
    } disarm{stop, armed};
    httplib::Request req = NewRequest("GET", path);
    httplib::Response res;
    if (server_.Authorized(req, res)) server_.Serve(req, res, [&stop] { return stop.stopped(); });
    if (res.status == -1) res.status = 200;  // as httplib's server answers a routed request
    if (res.status != 200 || !res.content_provider_) return res.status;
    if (onOpen) onOpen();
    return Stream(res, stop, onLine, fail);
  }

 private:
  httplib::Request NewRequest(std::string_view method, const std::string& target) const {
    httplib::Request req;
    req.method = std::string(method);
    size_t query = target.find('?');
    req.path = target.substr(0, query);
    if (query != std::string::npos) {
      httplib::detail::parse_query_text(target.substr(query + 1), req.params);
    }
    req.headers.emplace("Authorization", "Bearer " + token_);
    return req;
  }

  // Runs the watch's chunked content provider until the stream ends, is cut or is stopped.
  template <typename Failer>
  Result<int> Stream(httplib::Response& res, cluster::WatchStop& stop,
                     const std::function<bool(std::string_view)>& onLine, Failer& fail) {
    cluster::LineSplitter lines(onLine);
    bool done = false;
    httplib::DataSink sink;
    sink.write = [&](const char* data, size_t size) {
      return lines.Feed(std::string_view(data, size));
    };
    sink.done = [&] { done = true; };
    sink.is_writable = [] { return true; };
    while (!done) {
      if (stop.stopped()) return fail("canceled");
      bool more = res.content_provider_(0, 0, sink);
      if (lines.stopped()) return 200;  // the caller ended it
      if (stop.stopped()) return fail("canceled");
      if (!more) return fail("connection lost or timed out while reading");
    }
    lines.Finish();
    return 200;
  }

  StandInApiServer::Impl& server_;
  const std::string token_;
};

}  // namespace

std::unique_ptr<cluster::ApiClient> StandInApiServer::InMemoryClient(
    std::optional<std::string> token) {
  return std::make_unique<InMemoryApiClient>(*impl_, token ? *token : impl_->options.token);
}

}  // namespace gpugate::testing
