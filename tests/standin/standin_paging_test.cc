// The stand-in's paged lists (?limit=, ?continue=) over real TLS: one consistent snapshot across
// pages, tokens that expire with the history or on demand, and bulk loading.
#include <gtest/gtest.h>
#include <httplib.h>

#include "cluster/test_certs.h"
#include "common/strings.h"
#include "standin/standin.h"

namespace gpugate::testing {
namespace {

using nlohmann::json;

constexpr char kPods[] = "/api/v1/namespaces/team-a/pods";

json Pod(const std::string& name, const std::string& phase = "Pending") {
  return {{"metadata", {{"name", name}}}, {"spec", json::object()}, {"status", {{"phase", phase}}}};
}

class StandInPagingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto& certs = cluster::testing::SharedTestCerts();
    server_ = std::make_unique<StandInApiServer>(
        StandInApiServer::Options{.certFile = certs.certFile(), .keyFile = certs.keyFile()});
    int port = server_->Start();
    ASSERT_GT(port, 0);
    client_ = std::make_unique<httplib::SSLClient>("127.0.0.1", port);
    client_->enable_server_certificate_verification(false);
  }

  struct Reply {
    int status = 0;
    json body;
  };
  Reply Get(const std::string& path) {
    auto r = client_->Get(path, {{"Authorization", "Bearer stand-in-token"}});
    if (!r) {
      ADD_FAILURE() << "GET " << path << ": " << httplib::to_string(r.error());
      return {};
    }
    return {r->status, json::parse(r->body, nullptr, false)};
  }
  // A page of `path`: the first, or the one after `token`.
  Reply Page(const std::string& path, int limit, const std::string& token = "") {
    std::string query = "?limit=" + std::to_string(limit);
    if (!token.empty()) query += "&continue=" + QueryEscape(token);
    return Get(path + query);
  }

  std::unique_ptr<StandInApiServer> server_;
  std::unique_ptr<httplib::SSLClient> client_;
};

// "name:phase@resourceVersion" for each item of a page.
std::vector<std::string> Items(const json& page) {
  std::vector<std::string> out;
  for (const json& item : page["items"]) {
    out.push_back(item["metadata"]["name"].get<std::string>() + ":" +
                  item["status"]["phase"].get<std::string>() + "@" +
                  item["metadata"]["resourceVersion"].get<std::string>());
  }
  return out;
}

TEST_F(StandInPagingTest, EveryPageShowsTheCollectionAtTheFirstPagesVersion) {
  for (const char* name : {"a", "b", "c", "d", "e"}) server_->Create(kPods, Pod(name));  // 2..6
  server_->Create("/api/v1/namespaces/team-b/pods", Pod("f"));                           // 7
  Reply first = Page("/api/v1/pods", 2);
  ASSERT_EQ(first.status, 200) << first.body;
  EXPECT_EQ(first.body["kind"], "PodList");
  EXPECT_EQ(first.body["metadata"]["resourceVersion"], "7");
  EXPECT_EQ(Items(first.body), (std::vector<std::string>{"a:Pending@2", "b:Pending@3"}));
  std::string token = first.body["metadata"]["continue"];

  // Writes between pages, before and after where the list stands.
  server_->Update(std::string(kPods) + "/a", Pod("a", "Running"));  // 8
  server_->Update(std::string(kPods) + "/c", Pod("c", "Running"));  // 9
  server_->Delete(std::string(kPods) + "/d");                       // 10
  server_->Create(kPods, Pod("cc"));                                // 11
  server_->Update(std::string(kPods) + "/c", Pod("c", "Failed"));   // 12

  std::vector<std::string> rest;
  for (int pages = 1; !token.empty(); ++pages) {
    ASSERT_LT(pages, 10) << "the pages never end";
    Reply page = Page("/api/v1/pods", 2, token);
    ASSERT_EQ(page.status, 200) << page.body;
    EXPECT_EQ(page.body["metadata"]["resourceVersion"], "7");
    for (const std::string& item : Items(page.body)) rest.push_back(item);
    token = page.body["metadata"].value("continue", "");
  }
  EXPECT_EQ(rest,
            (std::vector<std::string>{"c:Pending@4", "d:Pending@5", "e:Pending@6", "f:Pending@7"}));
  // A new list shows the writes.
  Reply now = Page("/api/v1/pods", 100);
  EXPECT_EQ(now.body["metadata"]["resourceVersion"], "12");
  EXPECT_FALSE(now.body["metadata"].contains("continue"));
  EXPECT_EQ(Items(now.body),
            (std::vector<std::string>{"a:Running@8", "b:Pending@3", "c:Failed@12", "cc:Pending@11",
                                      "e:Pending@6", "f:Pending@7"}));
  EXPECT_EQ(server_->listPages(), 4);
}

TEST_F(StandInPagingTest, ANamespacedListPagesThroughItsNamespaceOnly) {
  for (const char* name : {"a", "b", "c"}) server_->Create(kPods, Pod(name));
  server_->Create("/api/v1/namespaces/team-b/pods", Pod("x"));
  server_->Create("/api/v1/namespaces/team-0/pods", Pod("y"));
  Reply first = Page(kPods, 2);
  ASSERT_EQ(first.status, 200);
  EXPECT_EQ(Items(first.body), (std::vector<std::string>{"a:Pending@2", "b:Pending@3"}));
  Reply second = Page(kPods, 2, first.body["metadata"]["continue"]);
  ASSERT_EQ(second.status, 200);
  EXPECT_EQ(Items(second.body), (std::vector<std::string>{"c:Pending@4"}));
  EXPECT_FALSE(second.body["metadata"].contains("continue"));
  // An exact fit ends without a token, and without limit everything comes in one page.
  EXPECT_FALSE(Page(kPods, 3).body["metadata"].contains("continue"));
  EXPECT_EQ(Get(kPods).body["items"].size(), 3u);
}

TEST_F(StandInPagingTest, AContinueTokenExpiresWhenTheHistoryGoesPastItsVersion) {
  for (const char* name : {"a", "b", "c"}) server_->Create(kPods, Pod(name));
  std::string token = Page(kPods, 1).body["metadata"]["continue"];
  server_->ExpireHistory();  // no write since the list: its snapshot is still the present
  ASSERT_EQ(Page(kPods, 1, token).status, 200);
  server_->Create(kPods, Pod("d"));
  server_->ExpireHistory();  // compacted past the list's version
  Reply expired = Page(kPods, 1, token);
  EXPECT_EQ(expired.status, 410);
  EXPECT_EQ(expired.body["kind"], "Status");
  EXPECT_EQ(expired.body["reason"], "Expired");
  EXPECT_EQ(expired.body["code"], 410);
  EXPECT_EQ(expired.body["message"],
            "The provided continue parameter is too old to display a consistent list result. You "
            "can start a new list without the continue parameter.");
  EXPECT_EQ(server_->continuesExpired(), 1);
}

TEST_F(StandInPagingTest, ExpireContinueTokensAnswersTheNextContinues410) {
  for (const char* name : {"a", "b", "c"}) server_->Create(kPods, Pod(name));
  server_->ExpireContinueTokens(1);
  Reply first = Page(kPods, 1);  // no token: not affected
  ASSERT_EQ(first.status, 200);
  std::string token = first.body["metadata"]["continue"];
  Reply expired = Page(kPods, 1, token);
  EXPECT_EQ(expired.status, 410);
  EXPECT_EQ(expired.body["reason"], "Expired");
  Reply again = Page(kPods, 1, token);  // only one was to expire
  EXPECT_EQ(again.status, 200);
  EXPECT_EQ(Items(again.body), (std::vector<std::string>{"b:Pending@3"}));
  EXPECT_EQ(server_->continuesExpired(), 1);
  EXPECT_EQ(server_->listPages(), 2);
}

TEST_F(StandInPagingTest, BadPagingRequestsAreRefused) {
  server_->Create(kPods, Pod("a"));
  server_->Create(kPods, Pod("b"));
  std::string token = Page(kPods, 1).body["metadata"]["continue"];
  struct Case {
    std::string query;
    std::string message;
  } cases[] = {
      {"?limit=1&continue=" + QueryEscape(token) + "&resourceVersion=3",
       "specifying resource version is not allowed when using continue"},
      {"?limit=1&continue=bm90LWEtdG9rZW4%3D", "invalid continue token: bm90LWEtdG9rZW4="},
      {"?limit=-1", "invalid limit: -1"},
      {"?limit=ten", "invalid limit: ten"},
  };
  for (const Case& c : cases) {
    Reply r = Get(std::string(kPods) + c.query);
    EXPECT_EQ(r.status, 400) << c.query;
    EXPECT_EQ(r.body["reason"], "BadRequest") << c.query;
    EXPECT_EQ(r.body["message"], c.message) << c.query;
  }
}

TEST_F(StandInPagingTest, CreateManyLoadsObjectsAsCreateDoes) {
  size_t created = server_->CreateMany(kPods, 1200, [](size_t i) {
    json pod = Pod("p" + std::to_string(10000 + i));
    pod["metadata"]["uid"] = "uid-" + std::to_string(i);
    return pod;
  });
  EXPECT_EQ(created, 1200u);
  EXPECT_EQ(server_->CreateMany(kPods, 1, [](size_t) { return Pod("p10000"); }), 0u);  // taken
  Reply all = Get(kPods);
  ASSERT_EQ(all.body["items"].size(), 1200u);
  EXPECT_EQ(all.body["metadata"]["resourceVersion"], "1201");
  EXPECT_EQ(all.body["items"][7]["metadata"]["uid"], "uid-7");
  EXPECT_EQ(all.body["items"][7]["metadata"]["resourceVersion"], "9");
  EXPECT_EQ(all.body["items"][7]["metadata"]["namespace"], "team-a");
}

}  // namespace
}  // namespace gpugate::testing
