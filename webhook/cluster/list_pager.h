// Lists a Kubernetes collection page by page, handing each object to a sink: `limit` and
// `continue`, each page decoded item by item (list_page.h) and dropped, so a list holds one
// page's text at a time however many objects the collection has. The list's resourceVersion is
// its first page's. A continue token that expired mid-list (410) starts the list again from its
// first page, with a new sink. One implementation for the informers (informer.h) and for
// `gpugate audit`, which lists without watching.
#pragma once

#include <cstddef>
#include <expected>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cluster/api_client.h"
#include "cluster/kube_object.h"

namespace gpugate::cluster {

// One list as its pages arrive: Add for every object of one complete, consistent list (every
// page at the list's resourceVersion), then Commit once. A list that fails part way (an API
// error, a continue token that expired) is dropped without Commit and the next list gets a new
// sink: nothing a sink was given may reach the caller's state before Commit.
class ListSink {
 public:
  virtual ~ListSink() = default;
  // `object` is the sink's to keep or drop; the lister keeps no copy.
  virtual void Add(nlohmann::json object) = 0;
  virtual void Commit() = 0;
};

// A sink made of two functions; they may share the list's state through their captures.
std::unique_ptr<ListSink> MakeListSink(std::function<void(nlohmann::json object)> add,
                                       std::function<void()> commit);
// A sink that hands every object of the list to `done` at Commit, for small kinds and tests.
std::unique_ptr<ListSink> CollectList(std::function<void(std::vector<nlohmann::json> items)> done);

// Objects per page unless told otherwise: client-go's (and kubectl's --chunk-size) default.
inline constexpr size_t kListPageSize = 500;

struct ListOptions {
  // Objects per page (`limit`); 0 lists in one answer.
  size_t pageSize = kListPageSize;
  // Lists started in all, the first included, while continue tokens keep expiring.
  int attempts = 3;
};

struct ListHooks {
  // Every setback, worded for a log: "list (page 2): HTTP 410: ...; listing again from the
  // start", and the failure that ends the list. Optional.
  std::function<void(const std::string& message)> onError;
  // Every page received, those of abandoned lists too. Optional.
  std::function<void()> onPage;
  // Asked before each page; true abandons the list (no onError). Optional.
  std::function<bool()> stopped;
};

// Why a list did not complete.
struct ListFailure {
  // The HTTP status that ended it (403, 404, 410 when every attempt expired...); 0 when there
  // was no answer, the answer was not a list, the sink threw, or the list was stopped.
  int status = 0;
  std::string message;  // as onError heard it
};

// Lists `collectionPath` (e.g. "/api/v1/pods", "/apis/apps/v1/namespaces/ns/deployments"; it may
// carry a query) into a new sink from `newSink` per attempt and commits the one that saw a whole
// list. Returns the list's resourceVersion. An exception from the sink ends the list, reported.
std::expected<std::string, ListFailure> ListPaged(
    ApiClient& client, const std::string& collectionPath,
    const std::function<std::unique_ptr<ListSink>()>& newSink, const ListOptions& options = {},
    const ListHooks& hooks = {});

}  // namespace gpugate::cluster
