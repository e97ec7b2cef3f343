// The stand-in API server over real TLS, as gpugate's cluster client will see it.
#include "standin/standin.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

#include "integration/gpugate_process.h"
#include "support/eventually.h"

namespace gpugate::testing {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

constexpr char kPods[] = "/api/v1/namespaces/team-a/pods";

json Pod(const std::string& name) { return {{"metadata", {{"name", name}}}, {"spec", {}}}; }

std::string Rv(const json& object) { return object["metadata"]["resourceVersion"]; }

// Certificates for 127.0.0.1, made once by `gpugate certs`; removed at exit.
const TempDir& Certs() {
  static const TempDir dir;
  static const bool made = [] {
    Exit certs = RunGpugate({"certs", "--out", dir.path(), "--host", "127.0.0.1"});
    EXPECT_EQ(certs.code, 0) << certs.output;
    return certs.code == 0;
  }();
  (void)made;
  return dir;
}

std::unique_ptr<httplib::SSLClient> NewClient(int port) {
  auto client = std::make_unique<httplib::SSLClient>("127.0.0.1", port);
  client->set_ca_cert_path(Certs().File("ca.crt").c_str());
  client->enable_server_certificate_verification(true);
  client->set_read_timeout(10, 0);
  return client;
}

// A watch request on its own thread, collecting one parsed event per line.
class WatchRecorder {
 public:
  WatchRecorder(int port, const std::string& path, const std::string& token = "stand-in-token")
      : client_(NewClient(port)) {
    thread_ = std::thread([this, path, token] {
      std::string buffer;
      auto result = client_->Get(path, {{"Authorization", "Bearer " + token}},
                                 [&](const char* data, size_t size) {
                                   buffer.append(data, size);
                                   std::lock_guard lock(mu_);
                                   for (size_t nl; (nl = buffer.find('\n')) != std::string::npos;
                                        buffer.erase(0, nl + 1)) {
                                     events_.push_back(json::parse(buffer.substr(0, nl)));
                                   }
                                   changed_.notify_all();
                                   return true;
                                 });
      std::lock_guard lock(mu_);
      error_ = result.error();
      status_ = result ? result->status : 0;
      ended_ = true;
      changed_.notify_all();
    });
  }
  ~WatchRecorder() {
    // Shut the socket until the request notices (it may not have started yet).
    while (!WaitForEnd(10ms)) client_->stop();
    thread_.join();
  }

  // The events so far, once there are at least `n` (or whatever there is after the deadline).
  std::vector<json> WaitForEvents(size_t n, std::chrono::milliseconds timeout = 5s) {
    std::unique_lock lock(mu_);
    changed_.wait_for(lock, timeout, [&] { return events_.size() >= n || ended_; });
    return events_;
  }
  // Waits for the first event of `type`; null on timeout.
  json WaitForType(const std::string& type, std::chrono::milliseconds timeout = 5s) {
    std::unique_lock lock(mu_);
    json found;
    changed_.wait_for(lock, timeout, [&] {
      for (const json& e : events_) {
        if (e["type"] == type) found = e;
      }
      return !found.is_null() || ended_;
    });
    return found;
  }
  bool WaitForEnd(std::chrono::milliseconds timeout) {
    std::unique_lock lock(mu_);
    return changed_.wait_for(lock, timeout, [&] { return ended_; });
  }
  httplib::Error error() {
    std::lock_guard lock(mu_);
    return error_;
  }
  int status() {
    std::lock_guard lock(mu_);
    return status_;
  }

 private:
  std::unique_ptr<httplib::SSLClient> client_;
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable changed_;
  std::vector<json> events_;  // guarded by mu_
  httplib::Error error_ = httplib::Error::Success;
  int status_ = 0;
  bool ended_ = false;
};

std::vector<std::string> Types(const std::vector<json>& events) {
  std::vector<std::string> types;
  for (const json& e : events) types.push_back(e["type"]);
  return types;
}

std::vector<std::string> Names(const std::vector<json>& events) {
  std::vector<std::string> names;
  for (const json& e : events) names.push_back(e["object"]["metadata"]["name"]);
  return names;
}

class StandInApiServerTest : public ::testing::Test {
 protected:
  void SetUp() override { StartServer({}); }

  void StartServer(StandInApiServer::Options options) {
    if (server_) server_->Stop();
    options.certFile = Certs().File("tls.crt");
    options.keyFile = Certs().File("tls.key");
    server_ = std::make_unique<StandInApiServer>(options);
    port_ = server_->Start();
    ASSERT_GT(port_, 0);
    client_ = NewClient(port_);
  }

  struct Reply {
    int status = 0;
    json body;
  };
  Reply Call(const std::string& method, const std::string& path, const json& body = nullptr) {
    httplib::Headers auth = {{"Authorization", "Bearer stand-in-token"}};
    std::string text = body.is_null() ? "" : body.dump();
    httplib::Result r = method == "GET"    ? client_->Get(path, auth)
                        : method == "POST" ? client_->Post(path, auth, text, "application/json")
                        : method == "PUT"  ? client_->Put(path, auth, text, "application/json")
                                           : client_->Delete(path, auth);
    if (!r) {
      ADD_FAILURE() << method << " " << path << ": " << httplib::to_string(r.error());
      return {};
    }
    return {r->status, json::parse(r->body, nullptr, false)};
  }

  std::string ListVersion(const std::string& path) {
    return Call("GET", path).body["metadata"]["resourceVersion"];
  }

  std::unique_ptr<StandInApiServer> server_;
  std::unique_ptr<httplib::SSLClient> client_;
  int port_ = 0;
};

TEST_F(StandInApiServerTest, RefusesRequestsWithoutTheBearerToken) {
  for (const httplib::Headers& headers :
       {httplib::Headers{}, httplib::Headers{{"Authorization", "Bearer wrong"}}}) {
    auto r = client_->Get("/api/v1/pods", headers);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 401);
    json status = json::parse(r->body);
    EXPECT_EQ(status["kind"], "Status");
    EXPECT_EQ(status["reason"], "Unauthorized");
    EXPECT_EQ(status["code"], 401);
  }
  WatchRecorder watch(port_, "/api/v1/pods?watch=1", "wrong");
  ASSERT_TRUE(watch.WaitForEnd(5s));
  EXPECT_EQ(watch.status(), 401);
  EXPECT_EQ(server_->requests("GET"), 3);
  EXPECT_EQ(server_->watchesOpened(), 0);
}

TEST_F(StandInApiServerTest, CreateStampsMetadataAndGetAndListReturnIt) {
  json web = Pod("web");
  web["metadata"]["uid"] = "chosen-by-client";  // the API server assigns its own
  Reply created = Call("POST", kPods, web);
  ASSERT_EQ(created.status, 201) << created.body;
  const json& meta = created.body["metadata"];
  EXPECT_EQ(meta["namespace"], "team-a");
  EXPECT_EQ(meta["resourceVersion"], "2");
  EXPECT_EQ(meta["uid"].get<std::string>().size(), 36u);
  EXPECT_EQ(meta["creationTimestamp"].get<std::string>().back(), 'Z');
  EXPECT_EQ(created.body["kind"], "Pod");

  Reply got = Call("GET", std::string(kPods) + "/web");
  EXPECT_EQ(got.status, 200);
  EXPECT_EQ(got.body, created.body);

  json api = Pod("api");
  api["metadata"]["uid"] = "uid-from-admission";
  EXPECT_EQ(server_->Create("/api/v1/namespaces/team-b/pods", api)["metadata"]["uid"],
            "uid-from-admission");
  server_->Create(kPods, Pod("db"));
  Reply all = Call("GET", "/api/v1/pods");
  EXPECT_EQ(all.body["kind"], "PodList");
  EXPECT_EQ(all.body["metadata"]["resourceVersion"], "4");
  std::vector<std::string> names;
  for (const json& item : all.body["items"]) names.push_back(item["metadata"]["name"]);
  EXPECT_EQ(names, (std::vector<std::string>{"db", "web", "api"}));
  EXPECT_EQ(Call("GET", kPods).body["items"].size(), 2u);

  Reply missing = Call("GET", std::string(kPods) + "/nope");
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(missing.body["reason"], "NotFound");
  EXPECT_EQ(missing.body["message"], "pods \"nope\" not found");
}

TEST_F(StandInApiServerTest, ServesCustomResourcesUnderTheirGroup) {
  const std::string quotas = "/apis/gpugate.io/v1alpha1/namespaces/team-a/gpuquotas";
  Reply created =
      Call("POST", quotas, {{"kind", "GPUQuota"}, {"metadata", {{"generateName", "q-"}}}});
  ASSERT_EQ(created.status, 201) << created.body;
  std::string name = created.body["metadata"]["name"];
  EXPECT_TRUE(name.starts_with("q-") && name.size() == 7) << name;
  EXPECT_EQ(created.body["apiVersion"], "gpugate.io/v1alpha1");
  Reply list = Call("GET", "/apis/gpugate.io/v1alpha1/gpuquotas");
  EXPECT_EQ(list.body["kind"], "GPUQuotaList");
  EXPECT_EQ(list.body["apiVersion"], "gpugate.io/v1alpha1");
  EXPECT_EQ(list.body["items"].size(), 1u);
  EXPECT_EQ(Call("GET", "/apis/gpugate.io/v1alpha1/namespaces/team-a/gpuquotas/" + name).status,
            200);
  EXPECT_EQ(Call("GET", "/apis/other.io/v1/namespaces/team-a/gpuquotas/" + name).status, 404);
}

TEST_F(StandInApiServerTest, PutWithAStaleResourceVersionConflicts) {
  json pod = Call("POST", kPods, Pod("web")).body;
  server_->Update(std::string(kPods) + "/web", Pod("web"));  // someone else wrote in between

  pod["spec"]["nodeName"] = "n1";
  Reply stale = Call("PUT", std::string(kPods) + "/web", pod);
  EXPECT_EQ(stale.status, 409);
  EXPECT_EQ(stale.body["reason"], "Conflict");
  EXPECT_EQ(server_->conflicts(), 1);

  pod["metadata"]["resourceVersion"] = "3";
  Reply fresh = Call("PUT", std::string(kPods) + "/web", pod);
  ASSERT_EQ(fresh.status, 200) << fresh.body;
  EXPECT_EQ(Rv(fresh.body), "4");
  EXPECT_EQ(fresh.body["spec"]["nodeName"], "n1");
  EXPECT_EQ(fresh.body["metadata"]["uid"], pod["metadata"]["uid"]);
  EXPECT_EQ(server_->Get(std::string(kPods) + "/web"), fresh.body);

  EXPECT_EQ(Call("PUT", std::string(kPods) + "/gone", Pod("gone")).status, 404);
  EXPECT_EQ(server_->requests("PUT"), 3);
}

// etcd refuses a request over its --max-request-bytes, and kube-apiserver passes that on as a 500.
TEST_F(StandInApiServerTest, AnObjectOverTheSizeLimitIsRefusedAsEtcdRefusesIt) {
  StartServer({.maxObjectBytes = 2000});
  json big = Pod("big");
  big["metadata"]["annotations"] = {{"note", std::string(2000, 'x')}};
  Reply refused = Call("POST", kPods, big);
  EXPECT_EQ(refused.status, 500);
  EXPECT_EQ(refused.body["message"], "etcdserver: request is too large");
  EXPECT_EQ(Call("GET", std::string(kPods) + "/big").status, 404);  // nothing stored
  EXPECT_EQ(Call("POST", kPods, Pod("small")).status, 201);
}

TEST_F(StandInApiServerTest, InjectedAnswersAreServedTheirCountThenTheApiAnswers) {
  server_->InjectFailures({.method = "POST",
                           .pathPrefix = kPods,
                           .status = 429,
                           .message = "too many requests",
                           .reason = "TooManyRequests",
                           .retryAfter = "1",
                           .count = 2});
  httplib::Headers auth = {{"Authorization", "Bearer stand-in-token"}};
  for (int i = 0; i < 2; ++i) {
    // On one kept-alive connection: an injected answer must not leave the body unread.
    auto r = client_->Post(kPods, auth, Pod("web").dump(), "application/json");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 429);
    EXPECT_EQ(r->get_header_value("Retry-After"), "1");
    json status = json::parse(r->body);
    EXPECT_EQ(status["reason"], "TooManyRequests");
    EXPECT_EQ(status["message"], "too many requests");
  }
  EXPECT_EQ(Call("GET", kPods).status, 200);  // another method: not injected
  EXPECT_EQ(Call("POST", kPods, Pod("web")).status, 201);
  EXPECT_EQ(server_->injected(), 2);
  EXPECT_EQ(server_->requests("POST"), 3);
}

TEST_F(StandInApiServerTest, PostOfAnExistingNameIsAlreadyExists) {
  ASSERT_EQ(Call("POST", kPods, Pod("web")).status, 201);
  Reply again = Call("POST", kPods, Pod("web"));
  EXPECT_EQ(again.status, 409);
  EXPECT_EQ(again.body["reason"], "AlreadyExists");
  EXPECT_EQ(again.body["message"], "pods \"web\" already exists");
  EXPECT_EQ(server_->conflicts(), 1);
  EXPECT_EQ(Call("POST", kPods, json{{"metadata", json::object()}}).status, 422);
  EXPECT_EQ(Call("POST", kPods, {{"metadata", {{"name", "x"}, {"namespace", "team-b"}}}}).status,
            400);
}

TEST_F(StandInApiServerTest, DeleteReturnsTheObjectAtANewResourceVersion) {
  Call("POST", kPods, Pod("web"));
  Reply deleted = Call("DELETE", std::string(kPods) + "/web");
  EXPECT_EQ(deleted.status, 200);
  EXPECT_EQ(deleted.body["metadata"]["name"], "web");
  EXPECT_EQ(Rv(deleted.body), "3");
  EXPECT_EQ(Call("GET", std::string(kPods) + "/web").status, 404);
  EXPECT_EQ(Call("DELETE", std::string(kPods) + "/web").status, 404);
  EXPECT_TRUE(server_->Get(std::string(kPods) + "/web").is_null());
}

TEST_F(StandInApiServerTest, WatchFromAListVersionSeesLaterWritesInOrder) {
  server_->Create(kPods, Pod("old"));
  std::string rv = ListVersion(kPods);
  WatchRecorder watch(port_, std::string(kPods) + "?watch=1&resourceVersion=" + rv);
  std::thread writer([&] {
    Call("POST", kPods, Pod("web"));
    server_->Update(std::string(kPods) + "/web", Pod("web"));
    Call("DELETE", std::string(kPods) + "/web");
  });
  std::vector<json> events = watch.WaitForEvents(3);
  writer.join();
  ASSERT_EQ(Types(events), (std::vector<std::string>{"ADDED", "MODIFIED", "DELETED"}));
  EXPECT_EQ(Names(events), (std::vector<std::string>{"web", "web", "web"}));
  EXPECT_EQ(Rv(events[0]["object"]), "3");
  EXPECT_EQ(Rv(events[1]["object"]), "4");
  EXPECT_EQ(Rv(events[2]["object"]), "5");
  EXPECT_EQ(server_->watchesOpened(), 1);
}

TEST_F(StandInApiServerTest, OpaqueVersionsAreStringsTheServerReadsBack) {
  StartServer({.opaqueResourceVersions = true});
  json a = Call("POST", kPods, Pod("a")).body;
  std::string listed = ListVersion(kPods);
  EXPECT_TRUE(Rv(a).starts_with("rv-")) << Rv(a);
  EXPECT_EQ(listed, Rv(a));
  WatchRecorder watch(port_, std::string(kPods) + "?watch=1&resourceVersion=" + listed);
  server_->Create(kPods, Pod("b"));
  std::vector<json> events = watch.WaitForEvents(1);
  ASSERT_EQ(Names(events), (std::vector<std::string>{"b"}));
  std::string later = Rv(events[0]["object"]);
  EXPECT_TRUE(later.starts_with("rv-")) << later;
  EXPECT_NE(later, listed);
  // Issued in order, yet not ordered as text: a client must not compare them.
  EXPECT_LT(later, listed);

  json stale = a;
  stale["metadata"]["labels"] = {{"x", "1"}};
  EXPECT_EQ(Call("PUT", std::string(kPods) + "/a", stale).status, 200);
  EXPECT_EQ(Call("PUT", std::string(kPods) + "/a", stale).status, 409);
  EXPECT_EQ(Call("GET", std::string(kPods) + "?watch=1&resourceVersion=5").status, 400);
}

TEST_F(StandInApiServerTest, IdleConnectionsAreClosedAfterTheTimeout) {
  StartServer({.idleConnectionTimeout = 100ms});
  client_->set_keep_alive(true);
  ASSERT_EQ(Call("GET", kPods).status, 200);
  ASSERT_TRUE(Eventually([&] { return server_->idleConnectionsClosed() >= 1; }, 5s))
      << "never closed";
  EXPECT_EQ(server_->connectionsAccepted(), 1);
}

TEST_F(StandInApiServerTest, WatchWithoutAVersionStartsWithTheCurrentObjects) {
  server_->Create(kPods, Pod("b"));
  server_->Create(kPods, Pod("a"));
  server_->Create("/api/v1/namespaces/other/pods", Pod("c"));
  for (const std::string version : {"", "&resourceVersion=0"}) {
    WatchRecorder watch(port_, std::string(kPods) + "?watch=true" + version);
    std::vector<json> events = watch.WaitForEvents(2);
    EXPECT_EQ(Types(events), (std::vector<std::string>{"ADDED", "ADDED"}));
    EXPECT_EQ(Names(events), (std::vector<std::string>{"a", "b"}));
  }
}

TEST_F(StandInApiServerTest, ResumingReplaysExactlyTheMissedEvents) {
  server_->Create(kPods, Pod("a"));
  json b = server_->Create(kPods, Pod("b"));
  server_->Create(kPods, Pod("c"));
  server_->Update(std::string(kPods) + "/a", Pod("a"));
  server_->Delete(std::string(kPods) + "/b");
  WatchRecorder watch(port_, std::string(kPods) + "?watch=1&resourceVersion=" + Rv(b));
  ASSERT_EQ(Types(watch.WaitForEvents(3)),
            (std::vector<std::string>{"ADDED", "MODIFIED", "DELETED"}));
  server_->Create(kPods, Pod("marker"));
  std::vector<json> events = watch.WaitForEvents(4);
  EXPECT_EQ(Names(events), (std::vector<std::string>{"c", "a", "b", "marker"}));
}

TEST_F(StandInApiServerTest, BookmarksCarryTheCurrentVersion) {
  StartServer({.bookmarkInterval = 50ms});
  server_->Create(kPods, Pod("a"));
  server_->Create("/api/v1/namespaces/other/pods", Pod("b"));
  WatchRecorder watch(port_,
                      std::string(kPods) + "?watch=1&allowWatchBookmarks=true&resourceVersion=1");
  json bookmark = watch.WaitForType("BOOKMARK");
  ASSERT_FALSE(bookmark.is_null());
  EXPECT_EQ(bookmark["object"]["kind"], "Pod");
  EXPECT_EQ(bookmark["object"]["apiVersion"], "v1");
  EXPECT_EQ(Rv(bookmark["object"]), "3");
  WatchRecorder noBookmarks(port_, std::string(kPods) + "?watch=1&resourceVersion=0");
  server_->Create(kPods, Pod("c"));
  EXPECT_EQ(Types(noBookmarks.WaitForEvents(2)), (std::vector<std::string>{"ADDED", "ADDED"}));
}

TEST_F(StandInApiServerTest, AVersionOlderThanTheHistoryIsExpired) {
  server_->Create(kPods, Pod("a"));
  server_->Create(kPods, Pod("b"));
  server_->ExpireHistory();
  WatchRecorder old(port_, std::string(kPods) + "?watch=1&resourceVersion=1");
  ASSERT_TRUE(old.WaitForEnd(5s));
  std::vector<json> events = old.WaitForEvents(1);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["type"], "ERROR");
  EXPECT_EQ(events[0]["object"]["reason"], "Expired");
  EXPECT_EQ(events[0]["object"]["code"], 410);
  EXPECT_EQ(events[0]["object"]["message"], "too old resource version: 1 (3)");
  EXPECT_EQ(old.error(), httplib::Error::Success);

  WatchRecorder current(port_, std::string(kPods) + "?watch=1&resourceVersion=3");
  server_->Create(kPods, Pod("c"));
  EXPECT_EQ(Names(current.WaitForEvents(1)), (std::vector<std::string>{"c"}));
}

TEST_F(StandInApiServerTest, HistoryOverflowExpiresOldVersions) {
  StartServer({.historyLimit = 2});
  for (const char* name : {"a", "b", "c", "d"}) server_->Create(kPods, Pod(name));
  WatchRecorder tooOld(port_, std::string(kPods) + "?watch=1&resourceVersion=1");
  EXPECT_EQ(Types(tooOld.WaitForEvents(1)), (std::vector<std::string>{"ERROR"}));
  WatchRecorder oldest(port_, std::string(kPods) + "?watch=1&resourceVersion=3");
  EXPECT_EQ(Names(oldest.WaitForEvents(2)), (std::vector<std::string>{"c", "d"}));
}

TEST_F(StandInApiServerTest, BreakWatchesCutsStreamsPromptly) {
  WatchRecorder watch(port_, std::string(kPods) + "?watch=1");
  server_->Create(kPods, Pod("a"));
  ASSERT_EQ(watch.WaitForEvents(1).size(), 1u);
  server_->BreakWatches();
  ASSERT_TRUE(watch.WaitForEnd(2s));
  EXPECT_NE(watch.error(), httplib::Error::Success);
  // The server still serves, and new watches are not broken.
  WatchRecorder next(port_, std::string(kPods) + "?watch=1&resourceVersion=2");
  server_->Create(kPods, Pod("b"));
  EXPECT_EQ(Names(next.WaitForEvents(1)), (std::vector<std::string>{"b"}));
}

TEST_F(StandInApiServerTest, NamespacedWatchesSeeOnlyTheirNamespace) {
  WatchRecorder one(port_, std::string(kPods) + "?watch=1&resourceVersion=0");
  WatchRecorder all(port_, "/api/v1/pods?watch=1&resourceVersion=0");
  server_->Create("/api/v1/namespaces/other/pods", Pod("elsewhere"));
  server_->Create("/api/v1/namespaces/team-a/configmaps", Pod("not-a-pod"));
  server_->Create(kPods, Pod("here"));
  EXPECT_EQ(Names(all.WaitForEvents(2)), (std::vector<std::string>{"elsewhere", "here"}));
  server_->Create(kPods, Pod("marker"));
  EXPECT_EQ(Names(one.WaitForEvents(2)), (std::vector<std::string>{"here", "marker"}));
}

TEST_F(StandInApiServerTest, AWatchEndsWhenItsClientHangsUp) {
  {
    WatchRecorder watch(port_, std::string(kPods) + "?watch=1");  // no events, no bookmarks
    server_->Create(kPods, Pod("a"));
    ASSERT_EQ(watch.WaitForEvents(1).size(), 1u);
    EXPECT_EQ(server_->watchesOpen(), 1);
  }
  EXPECT_TRUE(Eventually([&] { return server_->watchesOpen() == 0; }, 3s));
}

TEST_F(StandInApiServerTest, TimeoutSecondsEndsTheStreamNormally) {
  StartServer({.watchTimeoutUnit = 100ms});  // "seconds" of 100 ms, so the test is quick
  auto start = Clock::now();
  WatchRecorder watch(port_, std::string(kPods) + "?watch=1&timeoutSeconds=2");
  ASSERT_TRUE(watch.WaitForEnd(5s));
  EXPECT_GE(Clock::now() - start, 200ms) << "the stream ended before its 2 units had passed";
  EXPECT_EQ(watch.error(), httplib::Error::Success);
  EXPECT_EQ(watch.status(), 200);
  EXPECT_TRUE(Eventually([&] { return server_->watchesOpen() == 0; }, 3s));
}

TEST_F(StandInApiServerTest, StopEndsOpenWatchesPromptly) {
  WatchRecorder watch(port_, std::string(kPods) + "?watch=1");
  server_->Create(kPods, Pod("a"));
  ASSERT_EQ(watch.WaitForEvents(1).size(), 1u);
  client_->set_keep_alive(true);
  Call("GET", kPods);  // and leave a kept-alive connection idle
  server_->Stop();
  ASSERT_TRUE(watch.WaitForEnd(2s));
  EXPECT_NE(watch.error(), httplib::Error::Success);
}

}  // namespace
}  // namespace gpugate::testing
