// The informer's paged lists against the stand-in API server: every object of a list spread over
// pages, at the first page's resourceVersion, then the watch from there; and a list whose
// continue token expires part way started again from its first page.
#include <gtest/gtest.h>

#include "cluster/informer.h"
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

constexpr char kPods[] = "/api/v1/namespaces/team-a/pods";

class InformerPagingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = std::make_unique<StandInApiServer>(StandInApiServer::Options{});
    client_ = server_->InMemoryClient();
  }

  // The server's pods now, as the mirror renders them.
  std::string Truth() { return testing::Rendered(client_->Get(kPods)); }

  std::unique_ptr<StandInApiServer> server_;
  std::unique_ptr<ApiClient> client_;
  Mirror mirror_;
};

TEST_F(InformerPagingTest, AListOverSeveralPagesIsOneSnapshotAndTheWatchCarriesOn) {
  for (const char* name : {"a", "b", "c", "d", "e", "f", "g"}) server_->Create(kPods, Pod(name));
  // Between the first page and the second, one pod is added and two change, all after the
  // first page's position: the list must show them as they were, and the watch the changes.
  std::string added, modified;
  mirror_.duringList = [&] {
    added = Rv(server_->Create(kPods, Pod("zz")));
    modified = Rv(server_->Update(std::string(kPods) + "/g", Pod("g")));
    ASSERT_TRUE(server_->Delete(std::string(kPods) + "/f"));
  };
  Informer informer(*client_, kPods, mirror_.Handlers(), {.initial = 10ms});
  informer.set_page_size(3);
  informer.Start();
  ASSERT_TRUE(mirror_.WaitFor([&] { return mirror_.Log().size() == 4; }))
      << ::testing::PrintToString(mirror_.Log());
  std::vector<std::string> log = mirror_.Log();
  EXPECT_EQ(std::vector<std::string>(log.begin(), log.begin() + 3),
            (std::vector<std::string>{"LIST 7", "ADDED zz@" + added, "MODIFIED g@" + modified}));
  EXPECT_TRUE(log[3].starts_with("DELETED f@")) << log[3];
  EXPECT_EQ(informer.lists(), 1);
  EXPECT_EQ(informer.pages(), 3);
  EXPECT_EQ(server_->listPages(), 3);
  EXPECT_EQ(server_->watchesOpened(), 1);
  EXPECT_TRUE(mirror_.Errors().empty()) << mirror_.Errors()[0];
  EXPECT_EQ(mirror_.Objects(), Truth());
}

TEST_F(InformerPagingTest, AContinueTokenThatExpiresStartsTheListAgainFromItsFirstPage) {
  for (const char* name : {"a", "b", "c", "d", "e"}) server_->Create(kPods, Pod(name));
  server_->ExpireContinueTokens(1);
  Informer informer(*client_, kPods, mirror_.Handlers(), {.initial = 10ms});
  informer.set_page_size(2);
  informer.Start();
  ASSERT_TRUE(mirror_.WaitFor([&] { return informer.Synced(); }));
  std::string marker = Rv(server_->Create(kPods, Pod("m")));  // and it watches
  ASSERT_TRUE(mirror_.WaitFor([&] { return mirror_.Log().size() == 2; }));
  // One list delivered: the abandoned one's first page never reached the handler's state.
  EXPECT_EQ(mirror_.Log(), (std::vector<std::string>{"LIST 5", "ADDED m@" + marker}));
  EXPECT_EQ(mirror_.Objects(), Truth());
  EXPECT_EQ(informer.lists(), 1);
  EXPECT_EQ(informer.pages(), 1 + 3);
  EXPECT_EQ(server_->continuesExpired(), 1);
  ASSERT_EQ(mirror_.Errors().size(), 1u);
  EXPECT_EQ(mirror_.Errors()[0],
            "/api/v1/namespaces/team-a/pods: list (page 2): HTTP 410: The provided continue "
            "parameter is too old to display a consistent list result. You can start a new list "
            "without the continue parameter.; listing again from the start");
}

TEST_F(InformerPagingTest, AHistoryCompactedMidListStartsTheListAgainWithTheNewObjects) {
  for (const char* name : {"a", "b", "c", "d", "e"}) server_->Create(kPods, Pod(name));
  mirror_.duringList = [&] {
    server_->Create(kPods, Pod("late"));
    server_->ExpireHistory();  // the first list's snapshot is gone
  };
  Informer informer(*client_, kPods, mirror_.Handlers(), {.initial = 10ms});
  informer.set_page_size(2);
  informer.Start();
  ASSERT_TRUE(mirror_.WaitFor([&] { return informer.Synced(); }));
  EXPECT_EQ(mirror_.Log(), std::vector<std::string>{"LIST 6"});
  std::string marker = Rv(server_->Create(kPods, Pod("m")));
  ASSERT_TRUE(mirror_.WaitFor([&] { return mirror_.Log().size() == 2; }));
  EXPECT_EQ(mirror_.Log().back(), "ADDED m@" + marker);
  EXPECT_EQ(mirror_.Objects(), Truth());
  EXPECT_EQ(server_->continuesExpired(), 1);
  EXPECT_EQ(informer.lists(), 1);
}

}  // namespace
}  // namespace gpugate::cluster
