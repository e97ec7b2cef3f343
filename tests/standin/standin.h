// A stand-in Kubernetes API server for tests: small, in-process, over real TLS on a free port,
// and faithful where gpugate depends on the real one:
//   - every write bumps one global resourceVersion and stamps it on the object (decimal, or
//     opaque strings with Options::opaqueResourceVersions);
//   - PUT with a stale metadata.resourceVersion -> 409 Conflict; POST of an existing name ->
//     409 AlreadyExists; GET of a missing object -> 404; bodies of errors are Status objects;
//   - list (namespaced or cluster-wide) returns items and the list's resourceVersion; with
//     ?limit=N, pages of N items and metadata.continue, every page of one list showing the
//     collection at its first page's resourceVersion; a continue token older than the history
//     (compacted) -> 410 Expired;
//   - ?watch=1&resourceVersion=N streams ADDED/MODIFIED/DELETED events after N as chunked JSON
//     lines, BOOKMARK events when allowWatchBookmarks=true, honours timeoutSeconds, and answers a
//     resourceVersion older than its history with an ERROR event carrying a 410 Expired Status;
//   - every request must carry `Authorization: Bearer <token>` (else 401);
//   - a kept-alive connection idle past Options::idleConnectionTimeout is closed with a TLS
//     close_notify.
// It does not validate objects, run admission, garbage-collect, or implement field/label selectors,
// patch, subresources, or server-side apply (docs/cluster.md lists these limits).
//
// Two ways in: over HTTPS (Start, then a cluster::KubeClient to port()), for tests about the
// wire; or in memory (InMemoryClient), for tests of cluster logic: the same handlers, store,
// injected failures, holds and counts, with no TLS, socket or server thread.
//
// Paths: /api/v1/[namespaces/NS/]RESOURCE[/NAME] and
// /apis/GROUP/VERSION/[namespaces/NS/]RESOURCE[/NAME].
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "cluster/api_client.h"

namespace gpugate::testing {

class StandInApiServer {
 public:
  struct Options {
    // Serving certificate and key (e.g. from `gpugate certs --host 127.0.0.1`).
    std::string certFile;
    std::string keyFile;
    std::string token = "stand-in-token";
    size_t historyLimit = 10000;  // events kept for watches to resume from
    std::chrono::milliseconds bookmarkInterval{300};
    // What one unit of a watch's ?timeoutSeconds= lasts: a second, as in Kubernetes. A test of
    // the timeout itself shortens it, so the stream it waits for ends in a fraction of a second
    // (the client still sends, and the stand-in still reads, a whole number).
    std::chrono::milliseconds watchTimeoutUnit{1000};
    // A kept-alive connection idle this long is closed with a TLS close_notify, as
    // kube-apiserver closes one idle for 90 s. Tests of stale connections make it short.
    std::chrono::milliseconds idleConnectionTimeout{10000};
    // resourceVersions as opaque strings ("rv-9e3779b97f4a7c17"), neither numbers nor in any
    // order, as the API conventions allow a server to issue; default: etcd-like decimals.
    bool opaqueResourceVersions = false;
    // How long each write (POST, PUT, DELETE) takes before it is applied, as etcd's commit does;
    // concurrent writes overlap, and a guarded write's version is checked when it is applied.
    // Benchmarks of bursts inject 10 ms.
    std::chrono::milliseconds writeLatency{0};
    // A written object larger than this is refused with kube-apiserver's answer to etcd's
    // refusal: 500 "etcdserver: request is too large" (etcd's --max-request-bytes, 1.5 MiB).
    size_t maxObjectBytes = 1536 * 1024;
  };

  explicit StandInApiServer(Options options);
  ~StandInApiServer();  // stops

  // Binds 127.0.0.1 on a free port and serves on background threads; returns the port, or -1
  // when the certificate does not load or no port can be bound. Ignores SIGPIPE process-wide
  // (a client hanging up mid-stream must fail a write, not kill the test).
  int Start();
  // Ends every watch stream (cut, as BreakWatches() does) and every kept-alive connection, and
  // joins the server's threads. Idempotent; the store stays readable through the C++ methods.
  void Stop();
  int port() const;

  // A cluster::ApiClient that calls the stand-in's handlers on the caller's thread: no TLS, no
  // socket, no Start() needed. It presents `token` (default: Options::token). After Stop() it
  // gets no answer at all (an error), as a client of a server that is gone. Watches end at once
  // when their stop token is stopped. A request's deadline is checked before it is sent, not
  // while HoldRequests holds it (giving up mid-request is the wire's: kube_client_test.cc).
  // Must not outlive the stand-in.
  std::unique_ptr<cluster::ApiClient> InMemoryClient(std::optional<std::string> token = {});

  // The store, as a controller or kubectl would change it (each call is one write: new
  // resourceVersion, watch events). `path` is an object path as above. Create fills in uid (when
  // the object has none: tests pass the uid admission saw), resourceVersion, creationTimestamp and
  // namespace; Update ignores resourceVersion (unconditional). On failure (name taken, object
  // absent, bad path) Create and Update return the Status object the HTTP API would answer.
  nlohmann::json Create(const std::string& collectionPath, nlohmann::json object);
  nlohmann::json Update(const std::string& objectPath, nlohmann::json object);
  bool Delete(const std::string& objectPath);
  nlohmann::json Get(const std::string& objectPath) const;  // null when absent

  // Cuts every open watch stream mid-stream (no terminating chunk), as a dropped connection does.
  void BreakWatches();
  // Forgets the event history: a watch resuming from any earlier resourceVersion gets 410, and so
  // does a list continued from a page taken before a write that followed (its snapshot is gone).
  void ExpireHistory();
  // The next `count` list requests that carry a continue token are answered 410 Expired, as
  // kube-apiserver answers a token older than etcd's compaction. continuesExpired() counts the
  // 410s served for continue tokens, these and those of a compacted history.
  void ExpireContinueTokens(int count = 1);
  int continuesExpired() const;
  // List answers (200) served, one per page.
  int listPages() const;

  // Bulk load: creates `count` objects in the collection, make(0) .. make(count - 1), as Create
  // does (each its own resourceVersion and watch event) without HTTP. Returns how many were
  // created (an object whose name is taken, say, is not).
  size_t CreateMany(const std::string& collectionPath, size_t count,
                    const std::function<nlohmann::json(size_t i)>& make);

  // Answers to inject in place of the API's own: the next `count` requests (not watches) whose
  // method and path match are answered `status` with a Status object carrying `message` and
  // `reason`, and a Retry-After header when `retryAfter` is set. Matching requests are counted
  // in requests() as usual; injected() counts the answers served this way.
  struct Failure {
    std::string method;      // "PUT", "GET", ...; empty: any
    std::string pathPrefix;  // e.g. "/apis/gpugate.io/"; empty: any
    int status = 503;
    std::string message = "the stand-in was told to fail this request";
    std::string reason = "ServiceUnavailable";
    std::string retryAfter;  // the header's value, e.g. "1"; empty: none
    int count = 1;
    // Instead: a 200 whose body is cut off after its first bytes (the connection closed mid-answer,
    // as a proxy or an API server killed mid-write does). The request is not carried out.
    bool cutMidAnswer = false;
  };
  void InjectFailures(Failure failure);
  int injected() const;

  // Requests to hold before serving them, as an API server whose etcd is slow to commit holds
  // writes: matching requests (not watches) wait `delay`, or until ReleaseHeld() or Stop(), then
  // are served as usual (a held write still lands, after its client may have given up). One hold
  // at a time; a new one replaces the last.
  struct Hold {
    std::string method;      // "PUT", ...; empty: any
    std::string pathPrefix;  // empty: any
    std::chrono::milliseconds delay{30'000};
  };
  void HoldRequests(Hold hold);
  // Ends the hold: held requests are served now, later ones are not held.
  void ReleaseHeld();
  int held() const;  // requests held so far
  // Replaces Options::writeLatency for writes that arrive from now on (a benchmark measures
  // one API server with several latencies, its clients' connections kept).
  void SetWriteLatency(std::chrono::milliseconds latency);

  // Counts of answered requests by method ("GET", "PUT", ...) and of 409s, for tests.
  int requests(const std::string& method) const;
  int conflicts() const;
  int watchesOpened() const;
  // Connections accepted, and those closed for sitting idle past idleConnectionTimeout.
  int connectionsAccepted() const;
  int idleConnectionsClosed() const;
  // Watch streams in progress now (one ends when it times out, is broken, or its client hangs up).
  int watchesOpen() const;

  // The state and handlers behind both ways in (standin_impl.h); named here so the in-memory
  // client (standin_memory.cc) can hold one.
  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace gpugate::testing
