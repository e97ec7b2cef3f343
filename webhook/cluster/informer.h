// List then watch one kind of object, the way client-go's reflector does: list in pages of 500
// (list_pager.h: the list's resourceVersion is its first page's, a continue token that expired
// mid-list starts the list again from its first page, each page decoded item by item into the
// handler's sink and dropped), watch from there with allowWatchBookmarks, resume from the last
// resourceVersion seen when a stream ends, relist on 410 Gone (or an ERROR event with code 410),
// back off exponentially on errors. Handlers run on the informer's own thread.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "cluster/api_client.h"
#include "cluster/backoff.h"
#include "cluster/list_pager.h"

namespace gpugate::cluster {

struct WatchEvent {
  enum class Type { kAdded, kModified, kDeleted };
  Type type = Type::kAdded;
  nlohmann::json object;
};

struct InformerHandlers {
  // Starts a list (the first sync, and every relist).
  std::function<std::unique_ptr<ListSink>()> onList;
  // One change after the list.
  std::function<void(const WatchEvent& event)> onEvent;
  // Optional: a failure the informer recovers from by itself (list or watch error, 410 Gone), for
  // logs. A handler that throws is reported here too, and the informer relists.
  std::function<void(const std::string& message)> onError;
};

class Informer {
 public:
  // `collectionPath`: e.g. "/api/v1/pods" or "/apis/gpugate.io/v1alpha1/gpuquotas".
  // `backoff` spaces relists and re-watches after errors, jittered (kEqual by default) so
  // replicas that lost the API together do not relist together.
  Informer(ApiClient& client, std::string collectionPath, InformerHandlers handlers,
           BackoffPolicy backoff = {});
  ~Informer();  // stops

  // Objects per list page (`limit`); 0 lists in one answer. Call before Start.
  static constexpr size_t kDefaultPageSize = kListPageSize;
  void set_page_size(size_t limit) { pageSize_ = limit; }

  // Starts the thread; after Stop, starts again (a relist first).
  void Start();
  // Returns after the thread has ended. Ends the watch at once through the informer's own stop
  // token: other watches on the same client go on.
  void Stop();

  // True once the first list has been delivered.
  bool Synced() const { return synced_; }
  // True while a watch stream is open (the server answered 200 and has not ended it): events
  // are arriving as they happen. False while listing, backing off or reconnecting.
  bool Watching() const { return watching_; }
  std::string ResourceVersion() const;
  // Counts for tests and metrics: lists done (1 + relists), list pages received (of every list,
  // those of abandoned lists too), watch streams opened.
  int lists() const { return lists_; }
  int pages() const { return pages_; }
  int watches() const { return watches_; }

 private:
  enum class WatchEnd { kEnded, kGone, kFailed };
  void Run();
  bool List();
  WatchEnd WatchOnce();
  // One event line; false ends the stream, with `end` saying what follows.
  bool HandleLine(std::string_view line, WatchEnd& end);
  // An event or bookmark went through: remember its resourceVersion, reset the backoff.
  bool Progress(std::string rv);
  // Waits the backoff's next wait, or until Stop().
  void WaitBeforeRetry();
  void Report(const std::string& message);
  void SetResourceVersion(std::string rv);

  ApiClient& client_;
  WatchStop watchStop_;
  std::string path_;
  InformerHandlers handlers_;
  size_t pageSize_ = kDefaultPageSize;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> synced_{false};
  std::atomic<bool> watching_{false};
  std::atomic<int> lists_{0};
  std::atomic<int> pages_{0};
  std::atomic<int> watches_{0};
  mutable std::mutex mu_;
  std::condition_variable wake_;  // Stop() ends a backoff wait
  std::string resourceVersion_;   // guarded by mu_
  // Run's thread only:
  Backoff backoff_;
  bool progressSinceList_ = false;  // an event or bookmark arrived since the last list
  int linesThisWatch_ = 0;
};

}  // namespace gpugate::cluster
