// ListPaged against the stand-in API server: pages, the list's resourceVersion, a list started
// again with a new sink when its continue token expires, and the failures that end a list.
#include "cluster/list_pager.h"

#include <gtest/gtest.h>

#include "standin/standin.h"

namespace gpugate::cluster {
namespace {

using gpugate::testing::StandInApiServer;
using nlohmann::json;

constexpr char kPods[] = "/api/v1/namespaces/team-a/pods";

json Pod(size_t i) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", "pod-" + std::to_string(100 + i)}}},
          {"spec", json::object()}};
}

// What a list delivered: each sink's objects by name, "+" once committed.
struct Recorder {
  std::vector<std::string> lists;
  std::unique_ptr<ListSink> NewSink() {
    lists.emplace_back();
    size_t at = lists.size() - 1;
    return MakeListSink(
        [this, at](json object) {
          lists[at] += (lists[at].empty() ? "" : " ") +
                       object["metadata"]["name"].get<std::string>().substr(4);
        },
        [this, at] { lists[at] += " +"; });
  }
  std::function<std::unique_ptr<ListSink>()> Factory() {
    return [this] { return NewSink(); };
  }
};

class ListPagerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = std::make_unique<StandInApiServer>(StandInApiServer::Options{});
    client_ = server_->InMemoryClient();
    server_->CreateMany(kPods, 5, Pod);
  }

  std::unique_ptr<StandInApiServer> server_;
  std::unique_ptr<ApiClient> client_;
  Recorder recorder_;
  std::vector<std::string> errors_;
  int pages_ = 0;
  ListHooks hooks_{.onError = [this](const std::string& m) { errors_.push_back(m); },
                   .onPage = [this] { ++pages_; }};
};

TEST_F(ListPagerTest, EveryObjectOfEveryPageReachesOneSinkWhichIsCommitted) {
  auto listed = ListPaged(*client_, kPods, recorder_.Factory(), {.pageSize = 2}, hooks_);
  ASSERT_TRUE(listed) << listed.error().message;
  EXPECT_EQ(*listed, server_->Get(std::string(kPods) + "/pod-104")["metadata"]["resourceVersion"]
                         .get<std::string>());
  EXPECT_EQ(recorder_.lists, std::vector<std::string>{"100 101 102 103 104 +"});
  EXPECT_EQ(pages_, 3);
  EXPECT_EQ(server_->listPages(), 3);
  EXPECT_TRUE(errors_.empty());
}

TEST_F(ListPagerTest, PageSizeZeroListsInOneAnswer) {
  auto listed = ListPaged(*client_, kPods, recorder_.Factory(), {.pageSize = 0}, hooks_);
  ASSERT_TRUE(listed);
  EXPECT_EQ(recorder_.lists, std::vector<std::string>{"100 101 102 103 104 +"});
  EXPECT_EQ(pages_, 1);
}

TEST_F(ListPagerTest, AnExpiredContinueTokenStartsAgainWithANewSink) {
  server_->ExpireContinueTokens(1);
  auto listed = ListPaged(*client_, kPods, recorder_.Factory(), {.pageSize = 2}, hooks_);
  ASSERT_TRUE(listed) << listed.error().message;
  // The abandoned list's first page reached its own sink, never committed.
  EXPECT_EQ(recorder_.lists, (std::vector<std::string>{"100 101", "100 101 102 103 104 +"}));
  EXPECT_EQ(pages_, 1 + 3);
  ASSERT_EQ(errors_.size(), 1u);
  EXPECT_TRUE(errors_[0].starts_with("list (page 2): HTTP 410: ")) << errors_[0];
  EXPECT_TRUE(errors_[0].ends_with("; listing again from the start")) << errors_[0];
}

TEST_F(ListPagerTest, TokensThatKeepExpiringEndTheListAfterItsAttempts) {
  server_->ExpireContinueTokens(5);
  auto listed =
      ListPaged(*client_, kPods, recorder_.Factory(), {.pageSize = 2, .attempts = 2}, hooks_);
  ASSERT_FALSE(listed);
  EXPECT_EQ(listed.error().status, 410);
  EXPECT_EQ(recorder_.lists, (std::vector<std::string>{"100 101", "100 101"}));
  EXPECT_EQ(errors_.size(), 2u);
}

TEST_F(ListPagerTest, AnErrorAnswerEndsTheListWithItsStatusAndMessage) {
  server_->InjectFailures({.method = "GET",
                           .pathPrefix = kPods,
                           .status = 403,
                           .message = "pods is forbidden",
                           .reason = "Forbidden"});
  auto listed = ListPaged(*client_, kPods, recorder_.Factory(), {}, hooks_);
  ASSERT_FALSE(listed);
  EXPECT_EQ(listed.error().status, 403);
  EXPECT_EQ(listed.error().message, "list: HTTP 403: pods is forbidden");
  EXPECT_EQ(errors_, std::vector<std::string>{"list: HTTP 403: pods is forbidden"});
  EXPECT_EQ(recorder_.lists, std::vector<std::string>{""});  // one sink, never committed
}

TEST_F(ListPagerTest, NoAnswerAtAllIsStatusZero) {
  server_->Stop();
  auto listed = ListPaged(*client_, kPods, recorder_.Factory(), {}, hooks_);
  ASSERT_FALSE(listed);
  EXPECT_EQ(listed.error().status, 0);
  EXPECT_TRUE(listed.error().message.starts_with("list: ")) << listed.error().message;
}

TEST_F(ListPagerTest, AStoppedListEndsBeforeItsNextPageWithoutAnError) {
  int asked = 0;
  hooks_.stopped = [&] { return ++asked > 1; };  // stopped after the first page
  auto listed = ListPaged(*client_, kPods, recorder_.Factory(), {.pageSize = 2}, hooks_);
  ASSERT_FALSE(listed);
  EXPECT_EQ(recorder_.lists, std::vector<std::string>{"100 101"});
  EXPECT_TRUE(errors_.empty());
}

TEST_F(ListPagerTest, ASinkThatThrowsEndsTheListReported) {
  auto throwing = [] {
    return MakeListSink([](json) { throw std::runtime_error("no room"); }, [] {});
  };
  auto listed = ListPaged(*client_, kPods, throwing, {}, hooks_);
  ASSERT_FALSE(listed);
  EXPECT_EQ(listed.error().message, "list handler failed: no room");
  EXPECT_EQ(errors_, std::vector<std::string>{"list handler failed: no room"});
}

}  // namespace
}  // namespace gpugate::cluster
