#include "cluster/list_pager.h"

#include "cluster/list_page.h"
#include "common/strings.h"

namespace gpugate::cluster {
namespace {

using nlohmann::json;

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

enum class PageEnd { kRead, kExpired, kFailed };

// Where one list stands: pages read, the list's resourceVersion, the next page's token.
struct Cursor {
  int page = 0;
  std::string listVersion;
  std::string continueToken;
};

// One list attempt over the pages of a collection.
class Lister {
 public:
  Lister(ApiClient& client, const std::string& path, const ListOptions& options,
         const ListHooks& hooks)
      : client_(client), path_(path), options_(options), hooks_(hooks) {}

  // Lists into `sink` and commits it. kRead: done, `listVersion()` set; otherwise why not,
  // with failure() saying so.
  PageEnd ListOnce(ListSink& sink) {
    cursor_ = {};
    try {
      do {
        if (Stopped()) return Stop();
        if (PageEnd end = ReadPage(sink); end != PageEnd::kRead) return end;
      } while (!cursor_.continueToken.empty());
      if (Stopped()) return Stop();
      sink.Commit();
    } catch (const std::exception& e) {
      return Failed(0, std::string("list handler failed: ") + e.what());
    }
    return PageEnd::kRead;
  }

  const std::string& listVersion() const { return cursor_.listVersion; }
  ListFailure& failure() { return failure_; }

 private:
  bool Stopped() const { return hooks_.stopped && hooks_.stopped(); }
  PageEnd Stop() {
    failure_ = {0, "list stopped"};
    return PageEnd::kFailed;
  }

  PageEnd Failed(int status, std::string message) {
    if (hooks_.onError) hooks_.onError(message);
    failure_ = {status, std::move(message)};
    return PageEnd::kFailed;
  }

  std::string PagePath() const {
    if (options_.pageSize == 0 && cursor_.continueToken.empty()) return path_;
    std::string path = path_ + (path_.find('?') == std::string::npos ? "?" : "&");
    path += "limit=" + std::to_string(options_.pageSize);
    if (!cursor_.continueToken.empty()) path += "&continue=" + QueryEscape(cursor_.continueToken);
    return path;
  }

  PageEnd ReadPage(ListSink& sink) {
    bool first = ++cursor_.page == 1;
    auto res = client_.Get(PagePath());
    std::string where = "list" + (first ? "" : " (page " + std::to_string(cursor_.page) + ")");
    if (!res) return Failed(0, where + ": " + res.error().message);
    if (res->status == 410 && !first) {
      std::string message =
          where + ": HTTP 410: " + StatusMessage(res->body) + "; listing again from the start";
      if (hooks_.onError) hooks_.onError(message);
      failure_ = {410, std::move(message)};
      return PageEnd::kExpired;
    }
    if (res->status != 200) {
      return Failed(res->status, where + ": HTTP " + std::to_string(res->status) + ": " +
                                     StatusMessage(res->body));
    }
    auto meta = DecodeListPage(res->body, [&](json item) { sink.Add(std::move(item)); });
    if (hooks_.onPage) hooks_.onPage();
    if (!meta) return Failed(0, where + ": " + meta.error().message);
    // Every page carries the list's resourceVersion; the first page's is the one to trust.
    if (first) cursor_.listVersion = std::move(meta->resourceVersion);
    cursor_.continueToken = std::move(meta->continueToken);
    return PageEnd::kRead;
  }

  ApiClient& client_;
  const std::string& path_;
  const ListOptions& options_;
  const ListHooks& hooks_;
  Cursor cursor_;
  ListFailure failure_;
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

std::expected<std::string, ListFailure> ListPaged(
    ApiClient& client, const std::string& collectionPath,
    const std::function<std::unique_ptr<ListSink>()>& newSink, const ListOptions& options,
    const ListHooks& hooks) {
  // A continue token expires when the API server compacts its history past the list's
  // resourceVersion (etcd's default: every 5 minutes). client-go then lists again in one answer;
  // that answer is what paging exists to avoid, so the list starts again from its first page,
  // at once, a few times before giving up.
  Lister lister(client, collectionPath, options, hooks);
  for (int attempt = 1;; ++attempt) {
    std::unique_ptr<ListSink> sink = newSink();
    PageEnd end = lister.ListOnce(*sink);
    if (end == PageEnd::kRead) return lister.listVersion();
    if (end == PageEnd::kFailed || attempt >= options.attempts) {
      return std::unexpected(std::move(lister.failure()));
    }
  }
}

}  // namespace gpugate::cluster
