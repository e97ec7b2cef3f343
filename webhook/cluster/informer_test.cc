// The informer against the stand-in API server (tests/standin/), reached in memory: watch
// streams cut mid-stream, expired history, bookmarks; and against a scripted API for HTTP 410.
#include "cluster/informer.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <map>
#include <set>

#include "cluster/testing.h"
#include "standin/standin.h"

namespace gpugate::cluster {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;
using gpugate::testing::StandInApiServer;
using testing::Mirror;
using testing::Pod;
using testing::Rv;

constexpr char kToken[] = "stand-in-token";
constexpr char kPods[] = "/api/v1/namespaces/team-a/pods";

class InformerTest : public ::testing::Test {
 protected:
  void StartServer(StandInApiServer::Options options = {}) {
    server_ = std::make_unique<StandInApiServer>(options);
  }
  void SetUp() override { StartServer(); }

  // A client of the stand-in, in memory, presenting `token`.
  std::unique_ptr<ApiClient> Client(const std::string& token = kToken) {
    return server_->InMemoryClient(token);
  }

  // The server's objects in the mirror's rendering.
  std::string Truth() { return testing::Rendered(Client()->Get(kPods)); }

  std::unique_ptr<StandInApiServer> server_;
  Mirror mirror_;
};

TEST_F(InformerTest, ListsThenStreamsEvents) {
  std::string a = Rv(server_->Create(kPods, Pod("a")));
  std::string b = Rv(server_->Create(kPods, Pod("b")));
  auto client = Client();
  Informer informer(*client, kPods, mirror_.Handlers(), {.initial = 10ms});
  informer.Start();
  ASSERT_TRUE(mirror_.WaitFor([&] { return informer.Synced() && informer.Watching(); }));
  EXPECT_EQ(mirror_.Objects(), "a@" + a + " b@" + b);

  std::string c = Rv(server_->Create(kPods, Pod("c")));
  std::string a2 = Rv(server_->Update(std::string(kPods) + "/a", Pod("a")));
  ASSERT_TRUE(server_->Delete(std::string(kPods) + "/b"));
  ASSERT_TRUE(mirror_.WaitFor([&] { return mirror_.Log().size() == 4; }));
  std::vector<std::string> log = mirror_.Log();
  std::string deleted = log[3].substr(log[3].find('@') + 1);  // the deletion's resourceVersion
  EXPECT_EQ(log, (std::vector<std::string>{"LIST 2", "ADDED c@" + c, "MODIFIED a@" + a2,
                                           "DELETED b@" + deleted}));
  EXPECT_GT(std::stoi(deleted), std::stoi(a2));
  EXPECT_EQ(mirror_.Objects(), Truth());
  // The informer takes an event's resourceVersion after its handler returns.
  mirror_.WaitFor([&] { return informer.ResourceVersion() == deleted; });
  EXPECT_EQ(informer.ResourceVersion(), deleted);
  EXPECT_EQ(informer.lists(), 1);
  EXPECT_EQ(informer.watches(), 1);
  EXPECT_TRUE(mirror_.Errors().empty());
}

TEST_F(InformerTest, ResumesBrokenStreamsWithoutGapsOrRepeats) {
  auto client = Client();
  Informer informer(*client, kPods, mirror_.Handlers(), {.initial = 20ms});
  informer.Start();
  ASSERT_TRUE(mirror_.WaitFor([&] { return informer.Watching(); }));
  std::vector<std::string> want = {"LIST 0"};
  constexpr int kBreaks = 5;
  for (int i = 0; i < 60; ++i) {
    std::string name = "p" + std::to_string(i);
    want.push_back("ADDED " + name + "@" + Rv(server_->Create(kPods, Pod(name))));
    if (i % 10 == 5 && i / 10 < kBreaks) {
      int before = informer.watches();
      server_->BreakWatches();  // the next writes land while the informer is away, or after
      ASSERT_TRUE(mirror_.WaitFor([&] { return informer.watches() > before; }));
    }
  }
  ASSERT_TRUE(mirror_.WaitFor([&] { return mirror_.Log().size() == want.size(); }));
  EXPECT_EQ(mirror_.Log(), want);
  EXPECT_EQ(mirror_.Objects(), Truth());
  EXPECT_EQ(informer.lists(), 1);
  EXPECT_EQ(informer.watches(), 1 + kBreaks);
  EXPECT_EQ(server_->watchesOpened(), 1 + kBreaks);
  EXPECT_EQ(mirror_.Errors().size(), size_t(kBreaks));  // one broken stream each
}

TEST_F(InformerTest, RelistsWhenItsResourceVersionHasExpired) {
  server_->Create(kPods, Pod("a"));
  auto client = Client();
  // A backoff long enough to make the changes below while the informer is disconnected.
  Informer informer(*client, kPods, mirror_.Handlers(), {.initial = 300ms});
  informer.Start();
  ASSERT_TRUE(mirror_.WaitFor([&] { return informer.Watching(); }));
  std::string b = Rv(server_->Create(kPods, Pod("b")));
  ASSERT_TRUE(mirror_.WaitFor([&] { return mirror_.Log().size() == 2; }));

  server_->BreakWatches();
  std::string c = Rv(server_->Create(kPods, Pod("c")));
  ASSERT_TRUE(server_->Delete(std::string(kPods) + "/a"));
  server_->ExpireHistory();  // the events above are gone: resuming gets 410 Expired
  ASSERT_TRUE(mirror_.WaitFor([&] { return informer.lists() == 2 && informer.Watching(); }));
  EXPECT_EQ(mirror_.Log().back(), "LIST 2");
  EXPECT_EQ(mirror_.Objects(), "b@" + b + " c@" + c);
  EXPECT_EQ(mirror_.Objects(), Truth());

  std::string d = Rv(server_->Create(kPods, Pod("d")));  // and it watches from the new list
  ASSERT_TRUE(mirror_.WaitFor([&] { return mirror_.Log().back() == "ADDED d@" + d; }));
  bool sawExpired = false;
  for (const auto& e : mirror_.Errors()) sawExpired |= e.find("too old resource version") != e.npos;
  EXPECT_TRUE(sawExpired);
}

TEST_F(InformerTest, BookmarksAdvanceTheResourceVersion) {
  StartServer({.bookmarkInterval = 50ms});
  auto client = Client();
  Informer informer(*client, kPods, mirror_.Handlers(), {.initial = 10ms});
  informer.Start();
  ASSERT_TRUE(mirror_.WaitFor([&] { return informer.Watching(); }));
  // Writes elsewhere move the server's resourceVersion; only bookmarks tell this informer.
  std::string elsewhere = Rv(server_->Create("/api/v1/namespaces/team-b/pods", Pod("x")));
  ASSERT_TRUE(mirror_.WaitFor([&] { return informer.ResourceVersion() == elsewhere; }));
  EXPECT_EQ(mirror_.Log(), std::vector<std::string>{"LIST 0"});
}

TEST_F(InformerTest, ABadTokenNeverSyncs) {
  auto client = Client("wrong-token");
  Informer informer(*client, kPods, mirror_.Handlers(), {.initial = 10ms, .max = 20ms});
  informer.Start();
  ASSERT_TRUE(mirror_.WaitFor([&] { return mirror_.Errors().size() >= 3; }));
  EXPECT_FALSE(informer.Synced());
  EXPECT_FALSE(informer.Watching());
  EXPECT_EQ(informer.lists(), 0);
  EXPECT_TRUE(mirror_.Log().empty());
  EXPECT_TRUE(mirror_.Errors()[0].starts_with("/api/v1/namespaces/team-a/pods: list: HTTP 401"))
      << mirror_.Errors()[0];
}

TEST_F(InformerTest, StopEndsAQuietWatchOrABackoffAtOnce) {
  auto client = Client();
  Informer watching(*client, kPods, mirror_.Handlers());
  watching.Start();
  ASSERT_TRUE(mirror_.WaitFor([&] { return watching.Watching(); }));
  watching.Stop();
  EXPECT_FALSE(watching.Watching());

  auto refused = Client("wrong-token");
  Mirror other;
  Informer backingOff(*refused, kPods, other.Handlers(), {.initial = 60s, .max = 60s});
  backingOff.Start();
  ASSERT_TRUE(other.WaitFor([&] { return !other.Errors().empty(); }));
  backingOff.Stop();
}

// An API that lists fine and answers every watch with HTTP 410, as an apiserver may when the
// resourceVersion is too old for its watch cache.
class WatchGoneApi final : public ApiClient {
 public:
  Result<HttpResult> Request(Method, const std::string&, const std::string&, Deadline) override {
    return HttpResult{200, R"({"kind":"PodList","metadata":{"resourceVersion":"5"},"items":[]})"};
  }
  Result<int> Watch(const std::string& path, WatchStop&,
                    const std::function<bool(std::string_view)>&, int,
                    const std::function<void()>&) override {
    std::lock_guard lock(mu_);
    size_t at = path.find("resourceVersion=");
    watchVersions_.push_back(path.substr(at + 16, path.find('&', at) - at - 16));
    return 410;
  }
  std::vector<std::string> watchVersions() {
    std::lock_guard lock(mu_);
    return watchVersions_;
  }

 private:
  std::mutex mu_;
  std::vector<std::string> watchVersions_;  // guarded by mu_
};

TEST(InformerHttpGone, RelistsWhenTheWatchRequestIsGone) {
  WatchGoneApi api;
  Mirror mirror;
  Informer informer(api, "/api/v1/pods", mirror.Handlers(), {.initial = 5ms, .max = 20ms});
  informer.Start();
  EXPECT_TRUE(mirror.WaitFor([&] { return informer.lists() >= 3; }));
  informer.Stop();
  EXPECT_EQ(informer.watches(), 0);  // a 410 answer is not an open stream
  std::vector<std::string> watchVersions = api.watchVersions();
  ASSERT_GE(watchVersions.size(), 2u);
  EXPECT_EQ(watchVersions[0], "5");
}

}  // namespace
}  // namespace gpugate::cluster
