// HTTP for the stand-in API server: authentication, routes and watch streams over the Store.
#include "standin/standin.h"

#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <condition_variable>
#include <csignal>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "standin/standin_impl.h"

namespace gpugate::testing {

using nlohmann::json;
using standin::ApiError;
using standin::ApiPath;
using standin::WatchWake;
using Clock = std::chrono::steady_clock;
using standin::WatchStream;

namespace {

// How long a watch waits before looking again at its deadline; breaks and stops wake it at once.
constexpr std::chrono::milliseconds kWatchPoll{500};

std::optional<int64_t> ParseInt(const std::string& text) {
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 0) return std::nullopt;
  return value;
}

bool IsTrue(const std::string& value) { return value == "1" || value == "true"; }

// Takes one from a positive count; false when it is 0.
bool TakeOne(std::atomic<int>& count) {
  int left = count.load();
  while (left > 0 && !count.compare_exchange_weak(left, left - 1)) {
  }
  return left > 0;
}

bool WriteLines(httplib::DataSink& sink, const std::vector<std::string>& lines) {
  std::string chunk;
  for (const std::string& line : lines) chunk += line;
  return chunk.empty() || sink.write(chunk.data(), chunk.size());
}

}  // namespace

bool StandInApiServer::Impl::Authorized(const httplib::Request& req, httplib::Response& res) {
  {
    std::lock_guard lock(countsMu);
    ++requests[req.method];
  }
  if (req.get_header_value("Authorization") == "Bearer " + options.token) return true;
  Fail(res, {401, "Unauthorized", "Unauthorized", {}});
  return false;
}

bool StandInApiServer::Impl::Injected(const httplib::Request& req, httplib::Response& res) {
  if (IsTrue(req.get_param_value("watch"))) return false;
  std::lock_guard lock(countsMu);
  for (auto it = failures.begin(); it != failures.end(); ++it) {
    if ((!it->method.empty() && it->method != req.method) ||
        !req.path.starts_with(it->pathPrefix)) {
      continue;
    }
    if (it->cutMidAnswer) {
      res.status = 200;
      res.set_content_provider(1000, "application/json",
                               [](size_t, size_t, httplib::DataSink& sink) {
                                 sink.write("{\"kind\":", 8);
                                 return false;  // httplib closes the connection
                               });
    } else {
      Reply(res, it->status, standin::StatusFor({it->status, it->reason, it->message, {}}));
    }
    if (!it->retryAfter.empty()) res.set_header("Retry-After", it->retryAfter);
    ++injected;
    if (--it->count <= 0) failures.erase(it);
    return true;
  }
  return false;
}

void StandInApiServer::Impl::WaitIfHeld(const httplib::Request& req) {
  if (IsTrue(req.get_param_value("watch"))) return;
  std::unique_lock lock(holdMu);
  if (!hold || (!hold->method.empty() && hold->method != req.method) ||
      !req.path.starts_with(hold->pathPrefix)) {
    return;
  }
  ++heldCount;
  holdEnded.wait_for(lock, hold->delay, [this] { return !hold; });
}

void StandInApiServer::Impl::Reply(httplib::Response& res, int status, const json& body) {
  res.status = status;
  res.set_content(body.dump(), "application/json");
}

void StandInApiServer::Impl::Fail(httplib::Response& res, const ApiError& error) {
  if (error.code == 409) ++conflicts;
  Reply(res, error.code, standin::StatusFor(error));
}

void StandInApiServer::Impl::Answer(httplib::Response& res, int status,
                                    const standin::ApiResult<json>& result) {
  result ? Reply(res, status, *result) : Fail(res, result.error());
}

void StandInApiServer::Impl::Route() {
  http->set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    return Authorized(req, res) ? httplib::Server::HandlerResponse::Unhandled
                                : httplib::Server::HandlerResponse::Handled;
  });
  // One handler parses every path: httplib's regex routes cannot express the API's paths.
  // Injected answers are given here, not before routing: httplib reads a request's body only
  // after its pre-routing handler, and a body left unread would garble the next request.
  auto handle = [this](const httplib::Request& req, httplib::Response& res) {
    Serve(req, res, nullptr);
  };
  http->Get(".*", handle).Post(".*", handle).Put(".*", handle).Delete(".*", handle);
  http->set_exception_handler(
      [this](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
        Fail(res, {500, "InternalError", "the stand-in threw an exception", {}});
      });
}

void StandInApiServer::Impl::Serve(const httplib::Request& req, httplib::Response& res,
                                   const std::function<bool()>& canceled) {
  WaitIfHeld(req);
  if (const std::chrono::milliseconds latency = writeLatency.load();
      req.method != "GET" && latency.count() > 0) {
    std::this_thread::sleep_for(latency);
  }
  if (!Injected(req, res)) Handle(req, res, canceled);
}

void StandInApiServer::Impl::Handle(const httplib::Request& req, httplib::Response& res,
                                    const std::function<bool()>& canceled) {
  std::optional<ApiPath> path = standin::ParseApiPath(req.path);
  if (!path) {
    return Fail(res, {404, "NotFound", "the server could not find the requested resource", {}});
  }
  const bool collection = path->collection();
  if (req.method == "GET" && !collection) {
    if (auto object = store.Get(*path)) return Reply(res, 200, *object);
    return Fail(res, standin::NotFoundError(*path));
  }
  if (req.method == "GET" && IsTrue(req.get_param_value("watch"))) {
    return HandleWatch(req, res, *path, canceled);
  }
  if (req.method == "GET") return HandleList(req, res, *path);
  if (req.method == "DELETE" && !collection) return Answer(res, 200, store.Delete(*path));
  if ((req.method == "POST" && collection) || (req.method == "PUT" && !collection)) {
    json body = json::parse(req.body, nullptr, /*allow_exceptions=*/false);
    if (body.is_discarded()) {
      return Fail(res, {400, "BadRequest", "the request body is not valid JSON", {}});
    }
    if (req.body.size() > options.maxObjectBytes) {
      return Fail(res, {500, "InternalError", "etcdserver: request is too large", {}});
    }
    if (req.method == "POST") return Answer(res, 201, store.Create(*path, std::move(body)));
    return Answer(res, 200, store.Update(*path, std::move(body), /*checkVersion=*/true));
  }
  Fail(res, {405,
             "MethodNotAllowed",
             "the server does not allow this method on the requested resource",
             {}});
}

void StandInApiServer::Impl::HandleList(const httplib::Request& req, httplib::Response& res,
                                        const ApiPath& path) {
  std::string token = req.get_param_value("continue");
  std::optional<int64_t> limit = ParseInt(req.get_param_value("limit"));
  if (!req.get_param_value("limit").empty() && !limit) {
    return Fail(res, {400, "BadRequest", "invalid limit: " + req.get_param_value("limit"), {}});
  }
  if (!token.empty() && !req.get_param_value("resourceVersion").empty()) {
    return Fail(
        res,
        {400, "BadRequest", "specifying resource version is not allowed when using continue", {}});
  }
  if (!token.empty() && TakeOne(expireContinues)) {
    ++continuesExpired;
    return Fail(res, standin::ContinueExpiredError());
  }
  auto page = store.ListPage(path, static_cast<size_t>(limit.value_or(0)), token);
  if (!page) {
    if (page.error().code == 410) ++continuesExpired;
    return Fail(res, page.error());
  }
  ++listPages;
  res.status = 200;
  // Streamed from one copy: an unpaged list of 100,000 pods is half a gigabyte.
  auto body = std::make_shared<std::string>(std::move(*page));
  res.set_content_provider(body->size(), "application/json",
                           [body](size_t offset, size_t length, httplib::DataSink& sink) {
                             return sink.write(body->data() + offset,
                                               std::min<size_t>(length, 1 << 16));
                           });
}

void StandInApiServer::Impl::HandleWatch(const httplib::Request& req, httplib::Response& res,
                                         const ApiPath& path,
                                         const std::function<bool()>& canceled) {
  std::optional<int64_t> from;
  std::string version = req.get_param_value("resourceVersion");
  if (!version.empty() && version != "0") {
    from = store.ParseVersion(version);
    if (!from) return Fail(res, {400, "BadRequest", "invalid resourceVersion: " + version, {}});
  }
  std::optional<int64_t> timeout = ParseInt(req.get_param_value("timeoutSeconds"));
  auto watch = std::make_shared<WatchStream>();
  auto opened = store.OpenWatch(path, from, &watch->pending);
  ++watchesOpened;
  if (opened) {
    watch->cursor = *opened;
    watch->cursor.canceled = canceled;
  } else {
    watch->pending = {standin::EventLine("ERROR", standin::StatusFor(opened.error()))};
    watch->endAfterPending = true;
  }
  watch->peerPort = req.remote_port;
  Clock::time_point now = Clock::now();
  if (timeout && *timeout > 0) watch->deadline = now + *timeout * options.watchTimeoutUnit;
  if (IsTrue(req.get_param_value("allowWatchBookmarks"))) {
    watch->nextBookmark = now + options.bookmarkInterval;
  }
  ++watchesOpen;
  res.set_chunked_content_provider(
      "application/json",
      [this, watch](size_t, httplib::DataSink& sink) { return StreamWatch(*watch, sink); },
      [this](bool) { --watchesOpen; });
}

// httplib calls this again and again until it returns false (cut the connection: no final
// chunk) or calls sink.done() (a normal end of the stream).
bool StandInApiServer::Impl::StreamWatch(WatchStream& watch, httplib::DataSink& sink) {
  if (!watch.pending.empty()) {
    bool ok = WriteLines(sink, watch.pending);
    watch.pending.clear();
    if (ok && watch.endAfterPending) sink.done();
    return ok;
  }
  Clock::time_point now = Clock::now();
  if (now >= watch.deadline) {
    sink.done();
    return true;
  }
  std::vector<std::string> lines;
  switch (store.Next(watch.cursor, std::min({watch.deadline, watch.nextBookmark, now + kWatchPoll}),
                     &lines)) {
    case WatchWake::kBroken:
      return false;
    case WatchWake::kExpired:
      if (!WriteLines(sink, lines)) return false;
      sink.done();
      return true;
    case WatchWake::kEvents:
      return WriteLines(sink, lines);
    case WatchWake::kIdle:
      if (connections.PeerHungUp(watch.peerPort)) return false;
      break;
  }
  if (Clock::now() < watch.nextBookmark) return true;
  watch.nextBookmark = Clock::now() + options.bookmarkInterval;
  return WriteLines(sink, {store.BookmarkLine(watch.cursor)});
}

StandInApiServer::StandInApiServer(Options options)
    : impl_(std::make_unique<Impl>(std::move(options))) {}

StandInApiServer::~StandInApiServer() { Stop(); }

int StandInApiServer::Start() {
  Impl& s = *impl_;
  // A client that hangs up mid-stream must fail the write, not kill the test process.
  std::signal(SIGPIPE, SIG_IGN);
  s.http = std::make_unique<standin::IdleClosingServer>(
      [&s](SSL_CTX& ctx) {
        return s.connections.Configure(ctx, s.options.certFile, s.options.keyFile);
      },
      s.options.idleConnectionTimeout);  // an idle kept-alive connection holds one of the threads
  if (!s.http->is_valid()) return -1;
  s.http->set_tcp_nodelay(true);
  s.http->set_keep_alive_max_count(10000);
  s.http->set_read_timeout(10, 0);
  s.http->set_write_timeout(10, 0);
  s.http->new_task_queue = [] { return new httplib::ThreadPool(64); };
  s.Route();
  s.port = s.http->bind_to_any_port("127.0.0.1");
  if (s.port < 0) return -1;
  s.thread = std::thread([&s] {
    s.http->listen_after_bind();
    s.listenReturned = true;
  });
  // httplib's stop() does nothing until its accept loop runs, so Start() waits for the loop.
  while (!s.http->is_running() && !s.listenReturned) std::this_thread::yield();
  return s.listenReturned ? -1 : s.port;
}

void StandInApiServer::Stop() {
  Impl& s = *impl_;
  if (s.stopped.exchange(true)) return;
  ReleaseHeld();    // held requests end, so httplib's workers can be joined
  s.store.Close();  // first: watch streams end, so httplib's workers can be joined
  if (s.http) s.http->stop();
  // After stop(): httplib accepts no more, and no worker starts another keep-alive wait.
  s.connections.ShutdownAll();
  if (s.thread.joinable()) s.thread.join();
}

int StandInApiServer::port() const { return impl_->port; }

json StandInApiServer::Create(const std::string& collectionPath, json object) {
  auto path = standin::ParseApiPath(collectionPath);
  if (!path || !path->collection()) {
    return standin::StatusFor({400, "BadRequest", "not a collection path: " + collectionPath, {}});
  }
  auto created = impl_->store.Create(*path, std::move(object), /*keepUid=*/true);
  return created ? *created : standin::StatusFor(created.error());
}

json StandInApiServer::Update(const std::string& objectPath, json object) {
  auto path = standin::ParseApiPath(objectPath);
  if (!path || path->collection()) {
    return standin::StatusFor({400, "BadRequest", "not an object path: " + objectPath, {}});
  }
  auto updated = impl_->store.Update(*path, std::move(object), /*checkVersion=*/false);
  return updated ? *updated : standin::StatusFor(updated.error());
}

bool StandInApiServer::Delete(const std::string& objectPath) {
  auto path = standin::ParseApiPath(objectPath);
  return path && !path->collection() && impl_->store.Delete(*path).has_value();
}

json StandInApiServer::Get(const std::string& objectPath) const {
  auto path = standin::ParseApiPath(objectPath);
  if (!path || path->collection()) return nullptr;
  return impl_->store.Get(*path).value_or(nullptr);
}

void StandInApiServer::HoldRequests(Hold hold) {
  std::lock_guard lock(impl_->holdMu);
  impl_->hold = std::move(hold);
}

void StandInApiServer::ReleaseHeld() {
  {
    std::lock_guard lock(impl_->holdMu);
    impl_->hold.reset();
  }
  impl_->holdEnded.notify_all();
}

int StandInApiServer::held() const {
  std::lock_guard lock(impl_->holdMu);
  return impl_->heldCount;
}

void StandInApiServer::SetWriteLatency(std::chrono::milliseconds latency) {
  impl_->writeLatency = latency;
}

void StandInApiServer::BreakWatches() { impl_->store.BreakWatches(); }
void StandInApiServer::ExpireContinueTokens(int count) { impl_->expireContinues = count; }
int StandInApiServer::continuesExpired() const { return impl_->continuesExpired; }
int StandInApiServer::listPages() const { return impl_->listPages; }

size_t StandInApiServer::CreateMany(const std::string& collectionPath, size_t count,
                                    const std::function<json(size_t i)>& make) {
  auto path = standin::ParseApiPath(collectionPath);
  if (!path || !path->collection()) return 0;
  size_t created = 0;
  for (size_t i = 0; i < count; ++i) {
    created += impl_->store.Create(*path, make(i), /*keepUid=*/true).has_value() ? 1 : 0;
  }
  return created;
}
void StandInApiServer::ExpireHistory() { impl_->store.ExpireHistory(); }

int StandInApiServer::requests(const std::string& method) const {
  std::lock_guard lock(impl_->countsMu);
  auto it = impl_->requests.find(method);
  return it == impl_->requests.end() ? 0 : it->second;
}

void StandInApiServer::InjectFailures(Failure failure) {
  if (failure.count <= 0) return;
  std::lock_guard lock(impl_->countsMu);
  impl_->failures.push_back(std::move(failure));
}

int StandInApiServer::injected() const {
  std::lock_guard lock(impl_->countsMu);
  return impl_->injected;
}

int StandInApiServer::conflicts() const { return impl_->conflicts; }
int StandInApiServer::watchesOpened() const { return impl_->watchesOpened; }
int StandInApiServer::watchesOpen() const { return impl_->watchesOpen; }
int StandInApiServer::connectionsAccepted() const {
  return impl_->http ? impl_->http->connectionsAccepted() : 0;
}
int StandInApiServer::idleConnectionsClosed() const {
  return impl_->http ? impl_->http->idleConnectionsClosed() : 0;
}

}  // namespace gpugate::testing
