#include "cluster/informer.h"

#include <algorithm>
#include <initializer_list>

#include "cluster/list_page.h"
#include "common/strings.h"

namespace gpugate::cluster {
namespace {

constexpr int kWatchTimeoutSeconds = 300;
// Longer than the server's own timeout, so a quiet but healthy stream is ended by the server
// (normally, resumed at once), not by the idle timer; TCP keepalive notices a vanished peer.
constexpr int kWatchIdleSeconds = kWatchTimeoutSeconds + 30;
// A stream that ends cleanly this soon without a single line is backed off, not re-opened at once.
constexpr auto kShortestHealthyWatch = std::chrono::seconds(1);
// Lists started again at once after a continue token expired, before backing off.
constexpr int kListRestarts = 3;

using nlohmann::json;

// The value at a path of object keys; nullptr when a step is missing or not an object.
const json* At(const json& root, std::initializer_list<const char*> keys) {
  const json* node = &root;
  for (const char* key : keys) {
    if (!node->is_object()) return nullptr;
    auto it = node->find(key);
    if (it == node->end()) return nullptr;
    node = &*it;
  }
  return node;
}

std::string StringAt(const json& root, std::initializer_list<const char*> keys) {
  const json* value = At(root, keys);
  return value && value->is_string() ? value->get<std::string>() : std::string();
}

// A short description of an error body: a Status object's message, or the start of the text.
std::string StatusMessage(const std::string& body) {
  json status = json::parse(body, nullptr, false);
  std::string message = status.is_discarded() ? "" : StringAt(status, {"message"});
  if (message.empty()) message = body.substr(0, 200);
  return message;
}

std::string Abbreviate(std::string_view text) {
  return text.size() <= 120 ? std::string(text) : std::string(text.substr(0, 120)) + "...";
}

class FunctionSink : public ListSink {
 public:
  FunctionSink(std::function<void(json)> add, std::function<void()> commit)
      : add_(std::move(add)), commit_(std::move(commit)) {}
  void Add(json object) override { add_(std::move(object)); }
  void Commit() override { commit_(); }

 private:
  std::function<void(json)> add_;
  std::function<void()> commit_;
};

}  // namespace

std::unique_ptr<ListSink> MakeListSink(std::function<void(json object)> add,
                                       std::function<void()> commit) {
  return std::make_unique<FunctionSink>(std::move(add), std::move(commit));
}

std::unique_ptr<ListSink> CollectList(std::function<void(std::vector<json> items)> done) {
  auto items = std::make_shared<std::vector<json>>();
  return MakeListSink([items](json object) { items->push_back(std::move(object)); },
                      [items, done = std::move(done)] { done(std::move(*items)); });
}

Informer::Informer(KubeClient& client, std::string collectionPath, InformerHandlers handlers,
                   BackoffPolicy backoff)
    : client_(client),
      path_(std::move(collectionPath)),
      handlers_(std::move(handlers)),
      backoff_(backoff),
      delay_(backoff.initial) {}

Informer::~Informer() { Stop(); }

void Informer::Start() {
  if (thread_.joinable()) return;
  stop_ = false;
  thread_ = std::thread([this] { Run(); });
}

void Informer::Stop() {
  {
    std::lock_guard lock(mu_);  // so a Backoff about to wait cannot miss the wake-up
    stop_ = true;
  }
  wake_.notify_all();
  if (!thread_.joinable()) return;
  client_.CancelWatches();
  thread_.join();
}

std::string Informer::ResourceVersion() const {
  std::lock_guard lock(mu_);
  return resourceVersion_;
}

void Informer::SetResourceVersion(std::string rv) {
  if (rv.empty()) return;
  std::lock_guard lock(mu_);
  resourceVersion_ = std::move(rv);
}

void Informer::Report(const std::string& message) {
  if (handlers_.onError && !stop_) handlers_.onError(path_ + ": " + message);
}

void Informer::Backoff() {
  std::unique_lock lock(mu_);
  wake_.wait_for(lock, delay_, [this] { return stop_.load(); });
  delay_ = std::min(delay_ * 2, backoff_.max);
}

void Informer::Run() {
  bool needList = true;
  while (!stop_) {
    if (needList) {
      if (!List()) {
        Backoff();
        continue;
      }
      needList = false;
    }
    switch (WatchOnce()) {
      case WatchEnd::kEnded:  // the server's timeout: resume from the last resourceVersion
        break;
      case WatchEnd::kGone:  // our resourceVersion is older than the server's history
        if (!progressSinceList_) Backoff();  // list -> 410 -> list... must not spin
        needList = true;
        break;
      case WatchEnd::kFailed:
        Backoff();
        break;
    }
  }
}

bool Informer::List() {
  // A continue token expires when the API server compacts its history past the list's
  // resourceVersion (etcd's default: every 5 minutes). client-go then lists again in one answer;
  // that answer is what paging exists to avoid, so the list starts again from its first page,
  // at once, a few times before the usual backoff.
  for (int attempt = 1;; ++attempt) {
    ListEnd end = ListOnce();
    if (end == ListEnd::kDone) return true;
    if (end == ListEnd::kFailed || attempt == kListRestarts || stop_) return false;
  }
}

std::string Informer::PagePath(const std::string& continueToken) const {
  if (pageSize_ == 0 && continueToken.empty()) return path_;
  std::string path = path_ + (path_.find('?') == std::string::npos ? "?" : "&");
  path += "limit=" + std::to_string(pageSize_);
  if (!continueToken.empty()) path += "&continue=" + QueryEscape(continueToken);
  return path;
}

Informer::ListEnd Informer::ListOnce() {
  std::unique_ptr<ListSink> sink = handlers_.onList();
  ListCursor cursor;
  try {
    do {
      if (ListEnd end = ReadPage(*sink, cursor); end != ListEnd::kDone) return end;
    } while (!cursor.continueToken.empty() && !stop_);
    if (stop_) return ListEnd::kFailed;
    sink->Commit();
  } catch (const std::exception& e) {
    Report(std::string("list handler failed: ") + e.what());
    return ListEnd::kFailed;
  }
  SetResourceVersion(std::move(cursor.listVersion));
  progressSinceList_ = false;
  ++lists_;
  synced_ = true;
  return ListEnd::kDone;
}

Informer::ListEnd Informer::ReadPage(ListSink& sink, ListCursor& cursor) {
  bool first = ++cursor.page == 1;
  auto res = client_.Get(PagePath(cursor.continueToken));
  std::string where = "list" + (first ? "" : " (page " + std::to_string(cursor.page) + ")");
  if (!res) {
    Report(where + ": " + res.error().message);
    return ListEnd::kFailed;
  }
  if (res->status == 410 && !first) {
    Report(where + ": HTTP 410: " + StatusMessage(res->body) + "; listing again from the start");
    return ListEnd::kExpired;
  }
  if (res->status != 200) {
    Report(where + ": HTTP " + std::to_string(res->status) + ": " + StatusMessage(res->body));
    return ListEnd::kFailed;
  }
  auto meta = DecodeListPage(res->body, [&](json item) { sink.Add(std::move(item)); });
  ++pages_;
  if (!meta) {
    Report(where + ": " + meta.error().message);
    return ListEnd::kFailed;
  }
  // Every page carries the list's resourceVersion; the first page's is the one to trust.
  if (first) cursor.listVersion = std::move(meta->resourceVersion);
  cursor.continueToken = std::move(meta->continueToken);
  return ListEnd::kDone;
}

Informer::WatchEnd Informer::WatchOnce() {
  std::string path = path_ + (path_.find('?') == std::string::npos ? "?" : "&") +
                     "watch=1&allowWatchBookmarks=true&resourceVersion=" + ResourceVersion() +
                     "&timeoutSeconds=" + std::to_string(kWatchTimeoutSeconds);
  WatchEnd end = WatchEnd::kEnded;
  bool ended = false;  // HandleLine ended the stream and set `end`
  linesThisWatch_ = 0;
  auto onLine = [&](std::string_view line) {
    if (HandleLine(line, end)) return true;
    ended = true;
    return false;
  };
  auto onOpen = [this] {
    ++watches_;
    watching_ = true;
  };
  auto started = std::chrono::steady_clock::now();
  auto status = client_.Watch(path, onLine, kWatchIdleSeconds, onOpen);
  watching_ = false;
  if (ended) return end;
  if (!status) {
    Report(status.error().message);
    return WatchEnd::kFailed;
  }
  if (*status == 410) return WatchEnd::kGone;
  if (*status != 200) {
    Report("watch: HTTP " + std::to_string(*status));
    return WatchEnd::kFailed;
  }
  if (linesThisWatch_ == 0 && std::chrono::steady_clock::now() - started < kShortestHealthyWatch) {
    Report("watch: the server ended the stream at once");
    return WatchEnd::kFailed;
  }
  return WatchEnd::kEnded;
}

bool Informer::HandleLine(std::string_view line, WatchEnd& end) {
  json event = json::parse(line, nullptr, false);
  if (event.is_discarded() || !event.is_object()) {
    Report("watch: not a JSON event: " + Abbreviate(line));
    end = WatchEnd::kFailed;
    return false;
  }
  std::string type = StringAt(event, {"type"});
  json& object = event["object"];
  if (type == "ERROR") {
    const json* code = At(object, {"code"});
    bool gone = code && code->is_number_integer() && code->get<int64_t>() == 410;
    Report("watch: ERROR event: " + StringAt(object, {"message"}));
    end = gone ? WatchEnd::kGone : WatchEnd::kFailed;
    return false;
  }
  std::string rv = StringAt(object, {"metadata", "resourceVersion"});
  WatchEvent::Type kind;
  if (type == "ADDED") {
    kind = WatchEvent::Type::kAdded;
  } else if (type == "MODIFIED") {
    kind = WatchEvent::Type::kModified;
  } else if (type == "DELETED") {
    kind = WatchEvent::Type::kDeleted;
  } else if (type == "BOOKMARK") {
    return Progress(std::move(rv));
  } else {
    return true;  // a type from a newer server: nothing to deliver
  }
  try {
    handlers_.onEvent(WatchEvent{kind, std::move(object)});
  } catch (const std::exception& e) {
    Report(std::string("event handler failed: ") + e.what() + "; relisting");
    end = WatchEnd::kGone;       // the handler's state is suspect: start again from a list,
    progressSinceList_ = false;  // after a backoff, in case it fails every time
    return false;
  }
  return Progress(std::move(rv));
}

bool Informer::Progress(std::string rv) {
  SetResourceVersion(std::move(rv));
  ++linesThisWatch_;
  progressSinceList_ = true;
  delay_ = backoff_.initial;
  return true;
}

}  // namespace gpugate::cluster
