// The stand-in API server's state: objects keyed by API path, one global resourceVersion, and
// the bounded event history that watches read from. Knows nothing of HTTP.
//
// Thread-safety: every method may be called from any thread; one mutex guards all state, and
// every write wakes the watchers blocked in Next().
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <expected>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace gpugate::testing::standin {

// /api/v1/[namespaces/NS/]RESOURCE[/NAME] or /apis/GROUP/VERSION/[namespaces/NS/]RESOURCE[/NAME].
struct ApiPath {
  std::string prefix;    // "api/v1" or "apis/GROUP/VERSION"
  std::string resource;  // "pods"
  std::string ns;        // empty: a cluster-scoped object, or a collection across all namespaces
  std::string name;      // empty for a collection

  bool collection() const { return name.empty(); }
  std::string apiVersion() const;  // "v1" or "GROUP/VERSION"
  std::string groupResource()
      const;  // "pods" or "gpuquotas.gpugate.io", as Kubernetes messages say
};

// nullopt for a path outside the API, a discovery path, or a subresource.
std::optional<ApiPath> ParseApiPath(std::string_view path);

// A failed request; the HTTP layer sends it as a Kubernetes Status object.
struct ApiError {
  int code = 500;
  std::string reason;  // "NotFound", "AlreadyExists", "Conflict", "Expired", ...
  std::string message;
  nlohmann::json details;  // Status.details, or null
};
nlohmann::json StatusFor(const ApiError& error);
// An error about one object: Status.details names it, as Kubernetes does.
ApiError ErrorAbout(const ApiPath& path, int code, std::string reason, std::string message);
// 404 for an object path: `pods "web" not found`.
ApiError NotFoundError(const ApiPath& path);

template <typename T>
using ApiResult = std::expected<T, ApiError>;

// One line of a watch stream: {"type":TYPE,"object":OBJECT} and a newline.
std::string EventLine(std::string_view type, const nlohmann::json& object);
// The same with the object given as JSON text.
std::string EventLineOf(std::string_view type, std::string_view objectText);

// 410 Expired for a continue token whose list can no longer be served, as kube-apiserver words it.
ApiError ContinueExpiredError();

// Where one watch stands in the event stream.
struct WatchCursor {
  ApiPath filter;           // the watched collection; an empty ns matches every namespace
  int64_t sent = 0;         // every matching event up to this resourceVersion is delivered
  uint64_t generation = 0;  // BreakWatches() generation when the watch opened
  // Optional: true cuts the stream (kBroken) at the next wake; Wake() wakes the watchers.
  std::function<bool()> canceled;
};

enum class WatchWake {
  kEvents,   // `lines` holds the next events
  kIdle,     // nothing happened before `until`
  kBroken,   // BreakWatches() or Close(): cut the stream
  kExpired,  // the history lost events this watch still needed; `lines` holds the ERROR event
};

class Store {
 public:
  // `opaqueVersions`: resourceVersions are issued as opaque strings (VersionText), not decimals.
  explicit Store(size_t historyLimit, bool opaqueVersions = false);

  // A revision as the API shows it, and back; nullopt for text this store never issued.
  std::string VersionText(int64_t revision) const;
  std::optional<int64_t> ParseVersion(const std::string& text) const;

  // Each successful write is one new resourceVersion and one watch event.
  // `keepUid`: a metadata.uid in `object` is kept (tests pass the uid admission saw); otherwise,
  // as over HTTP, a new one is assigned.
  ApiResult<nlohmann::json> Create(const ApiPath& collection, nlohmann::json object,
                                   bool keepUid = false);
  // With `checkVersion`, a metadata.resourceVersion in `object` must equal the stored one (else
  // 409 Conflict); without it, or when the body carries none, the update is unconditional.
  ApiResult<nlohmann::json> Update(const ApiPath& path, nlohmann::json object, bool checkVersion);
  ApiResult<nlohmann::json> Delete(const ApiPath& path);
  std::optional<nlohmann::json> Get(const ApiPath& path) const;
  // One page of a <Kind>List of the collection's items (sorted by namespace, then name), as JSON
  // text: at most `limit` items (0: all), and metadata.continue when
  // more follow. Every page of one list shows the collection as it was at the first page's
  // resourceVersion, which each page carries: writes after it are undone from the history. A
  // continue token whose version the history no longer reaches (ExpireHistory, overflow) is
  // 410 Expired, as etcd compaction makes it; a token this store did not issue, 400.
  ApiResult<std::string> ListPage(const ApiPath& collection, size_t limit,
                                  const std::string& continueToken) const;

  // Opens a watch on `collection` for the events after resourceVersion `from`. With no `from`,
  // the watch starts now and `initial` receives a synthetic ADDED line per current object, as
  // Kubernetes does for resourceVersion "" and "0". A `from` older than the history: 410 Expired.
  ApiResult<WatchCursor> OpenWatch(const ApiPath& collection, std::optional<int64_t> from,
                                   std::vector<std::string>* initial);
  // Blocks until there are events for `cursor`, `until` passes, or the watch must end.
  WatchWake Next(WatchCursor& cursor, std::chrono::steady_clock::time_point until,
                 std::vector<std::string>* lines);
  // A BOOKMARK event at the cursor's resourceVersion.
  std::string BookmarkLine(const WatchCursor& cursor) const;

  void BreakWatches();
  // Wakes every watcher blocked in Next(), so one whose cursor was canceled ends.
  void Wake();
  void ExpireHistory();
  // Ends every watch, now and later (the server is stopping). The objects stay readable.
  void Close();

 private:
  // (prefix, resource, namespace, name): ordered so a collection is one sorted range.
  using Key = std::tuple<std::string, std::string, std::string, std::string>;
  struct Event {
    int64_t rv;
    ApiPath where;
    std::string line;
    // The object's JSON before this write; nullopt for a creation. Undoing the history's events
    // newer than a list's version gives that version's objects (ListPage).
    std::optional<std::string> before;
  };
  // An object as stored: its JSON text, and what writes read back from it.
  struct Stored {
    std::string text;
    std::string resourceVersion;
    nlohmann::json uid, creationTimestamp, apiVersion, kind;
  };
  struct ContinueToken {
    int64_t rv;
    std::string ns, name;  // the last object of the previous page
  };

  static Key KeyOf(const ApiPath& path) { return {path.prefix, path.resource, path.ns, path.name}; }
  // Stamps the next resourceVersion on `object`, records the event and returns the object's
  // text; caller holds mu_.
  std::string RecordLocked(std::string_view type, const ApiPath& where, nlohmann::json& object,
                           std::optional<std::string> before);
  static Stored StoredOf(const nlohmann::json& object, std::string text);
  // Calls `visit` with each object of the collection after `after` (all of them when nullopt),
  // in key order, as it was at revision `at`, until `visit` returns false. Caller holds mu_.
  void VisitAtLocked(const ApiPath& collection, int64_t at, const std::optional<Key>& after,
                     const std::function<bool(const Key&, const std::string&)>& visit) const;
  std::string EncodeContinue(const ContinueToken& token) const;
  std::optional<ContinueToken> DecodeContinue(const std::string& text) const;
  std::string KindLocked(const ApiPath& path) const;
  ApiError TooOldLocked(int64_t requested) const;
  std::string UniqueNameLocked(const ApiPath& collection, const std::string& ns,
                               const std::string& generateName);

  const size_t historyLimit_;
  const bool opaqueVersions_;
  mutable std::mutex mu_;
  std::condition_variable changed_;  // notified on every write, break and close
  std::map<Key, Stored> objects_;    // guarded by mu_
  // Guarded by mu_; the last write's version. Like etcd's, it starts above 0, so even an empty
  // store lists at a version a watch can resume from ("0" means "from now" to a watch).
  int64_t rv_ = 1;
  // Events floor_+1 .. rv_, one per write; a watch may resume from any version >= floor_.
  std::deque<Event> history_;  // guarded by mu_
  int64_t floor_ = 1;          // guarded by mu_
  uint64_t generation_ = 0;    // guarded by mu_; bumped by BreakWatches()
  bool closed_ = false;        // guarded by mu_
};

}  // namespace gpugate::testing::standin
