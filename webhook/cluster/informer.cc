#include "cluster/informer.h"

#include <algorithm>

#include "cluster/kube_object.h"

namespace gpugate::cluster {
namespace {

constexpr int kWatchTimeoutSeconds = 300;
// Longer than the server's own timeout, so a quiet but healthy stream is ended by the server
// (normally, resumed at once), not by the idle timer; TCP keepalive notices a vanished peer.
constexpr int kWatchIdleSeconds = kWatchTimeoutSeconds + 30;
// A stream that ends cleanly this soon without a single line is backed off, not re-opened at once.
constexpr auto kShortestHealthyWatch = std::chrono::seconds(1);
// Lists started in all when continue tokens keep expiring, before backing off.
constexpr int kListAttempts = 3;

using nlohmann::json;

std::string Abbreviate(std::string_view text) {
  return text.size() <= 120 ? std::string(text) : std::string(text.substr(0, 120)) + "...";
}

}  // namespace

Informer::Informer(ApiClient& client, std::string collectionPath, InformerHandlers handlers,
                   BackoffPolicy backoff)
    : client_(client),
      path_(std::move(collectionPath)),
      handlers_(std::move(handlers)),
      backoff_(backoff) {}

Informer::~Informer() { Stop(); }

void Informer::Start() {
  if (thread_.joinable()) return;
  stop_ = false;
  watchStop_.Reset();
  thread_ = std::thread([this] { Run(); });
}

void Informer::Stop() {
  {
    std::lock_guard lock(mu_);  // so a WaitBeforeRetry about to wait cannot miss the wake-up
    stop_ = true;
  }
  wake_.notify_all();
  if (!thread_.joinable()) return;
  watchStop_.Stop();
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

void Informer::WaitBeforeRetry() {
  const std::chrono::milliseconds wait = backoff_.Next();
  std::unique_lock lock(mu_);
  wake_.wait_for(lock, wait, [this] { return stop_.load(); });
}

void Informer::Run() {
  bool needList = true;
  while (!stop_) {
    if (needList) {
      if (!List()) {
        WaitBeforeRetry();
        continue;
      }
      needList = false;
    }
    switch (WatchOnce()) {
      case WatchEnd::kEnded:  // the server's timeout: resume from the last resourceVersion
        break;
      case WatchEnd::kGone:  // our resourceVersion is older than the server's history
        if (!progressSinceList_) WaitBeforeRetry();  // list -> 410 -> list... must not spin
        needList = true;
        break;
      case WatchEnd::kFailed:
        WaitBeforeRetry();
        break;
    }
  }
}

bool Informer::List() {
  auto listed = ListPaged(client_, path_, handlers_.onList,
                          {.pageSize = pageSize_, .attempts = kListAttempts},
                          {.onError = [this](const std::string& message) { Report(message); },
                           .onPage = [this] { ++pages_; },
                           .stopped = [this] { return stop_.load(); }});
  if (!listed) return false;
  SetResourceVersion(std::move(*listed));
  progressSinceList_ = false;
  ++lists_;
  synced_ = true;
  return true;
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
  auto status = client_.Watch(path, watchStop_, onLine, kWatchIdleSeconds, onOpen);
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
  backoff_.Reset();
  return true;
}

}  // namespace gpugate::cluster
