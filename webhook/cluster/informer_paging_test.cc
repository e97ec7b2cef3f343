// The informer's paged lists against the stand-in API server: every object of a list spread over
// pages, at the first page's resourceVersion, then the watch from there; and a list whose
// continue token expires part way started again from its first page.
#include <gtest/gtest.h>

#include <condition_variable>
#include <map>

#include "cluster/informer.h"
#include "cluster/test_certs.h"
#include "standin/standin.h"

namespace gpugate::cluster {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;
using gpugate::testing::StandInApiServer;

constexpr char kPods[] = "/api/v1/namespaces/team-a/pods";

json Pod(const std::string& name) {
  return {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", {{"name", name}}}, {"spec", {}}};
}

std::string Rv(const json& object) { return object["metadata"]["resourceVersion"]; }

// What the handlers were given: the objects (name@resourceVersion) and a log of lists and events.
// `duringList` runs once, on the informer's thread, when the first object of a list arrives:
// between the first page and the next.
class Recorder {
 public:
  std::function<void()> duringList;

  InformerHandlers Handlers() {
    auto onList = [this] {
      auto items = std::make_shared<std::map<std::string, std::string>>();
      auto add = [this, items](json object) {
        if (duringList) std::exchange(duringList, nullptr)();
        (*items)[object["metadata"]["name"]] = Rv(object);
      };
      auto commit = [this, items] {
        std::lock_guard lock(mu_);
        objects_ = std::move(*items);
        log_.push_back("LIST " + std::to_string(objects_.size()));
        changed_.notify_all();
      };
      return MakeListSink(add, commit);
    };
    auto onEvent = [this](const WatchEvent& event) {
      std::lock_guard lock(mu_);
      std::string name = event.object["metadata"]["name"];
      if (event.type == WatchEvent::Type::kDeleted) {
        objects_.erase(name);
        log_.push_back("DELETED " + name);
      } else {
        objects_[name] = Rv(event.object);
        log_.push_back("EVENT " + name + "@" + Rv(event.object));
      }
      changed_.notify_all();
    };
    auto onError = [this](const std::string& message) {
      std::lock_guard lock(mu_);
      errors_.push_back(message);
    };
    return {onList, onEvent, onError};
  }

  // Waits up to 5 s for the log to have `n` entries.
  bool WaitForLog(size_t n) {
    std::unique_lock lock(mu_);
    return changed_.wait_for(lock, 5s, [&] { return log_.size() >= n; });
  }
  std::string Objects() const {
    std::lock_guard lock(mu_);
    std::string out;
    for (const auto& [name, rv] : objects_) out += (out.empty() ? "" : " ") + name + "@" + rv;
    return out;
  }
  std::vector<std::string> Log() const {
    std::lock_guard lock(mu_);
    return log_;
  }
  std::vector<std::string> Errors() const {
    std::lock_guard lock(mu_);
    return errors_;
  }

 private:
  mutable std::mutex mu_;
  std::condition_variable changed_;
  std::map<std::string, std::string> objects_;
  std::vector<std::string> log_;
  std::vector<std::string> errors_;
};

class InformerPagingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto& certs = testing::SharedTestCerts();
    server_ = std::make_unique<StandInApiServer>(
        StandInApiServer::Options{.certFile = certs.certFile(), .keyFile = certs.keyFile()});
    int port = server_->Start();
    ASSERT_GT(port, 0);
    client_ = std::make_unique<KubeClient>(KubeConfig{.host = "127.0.0.1",
                                                      .port = port,
                                                      .caPem = certs.bundle.caCertPem,
                                                      .token = "stand-in-token"});
  }

  // The server's pods now, as the recorder renders them.
  std::string Truth() {
    auto list = client_->Get(kPods);
    if (!list || list->status != 200) return "no list";
    json pods = json::parse(list->body)["items"];
    std::string out;
    for (const json& pod : pods) {
      out += (out.empty() ? "" : " ") + pod["metadata"]["name"].get<std::string>() + "@" + Rv(pod);
    }
    return out;
  }

  std::unique_ptr<StandInApiServer> server_;
  std::unique_ptr<KubeClient> client_;
  Recorder recorder_;
};

TEST_F(InformerPagingTest, AListOverSeveralPagesIsOneSnapshotAndTheWatchCarriesOn) {
  for (const char* name : {"a", "b", "c", "d", "e", "f", "g"}) server_->Create(kPods, Pod(name));
  // Between the first page and the second, one pod is added and two change, all after the
  // first page's position: the list must show them as they were, and the watch the changes.
  std::string added, modified, deleted;
  recorder_.duringList = [&] {
    added = Rv(server_->Create(kPods, Pod("zz")));
    modified = Rv(server_->Update(std::string(kPods) + "/g", Pod("g")));
    ASSERT_TRUE(server_->Delete(std::string(kPods) + "/f"));
  };
  Informer informer(*client_, kPods, recorder_.Handlers(), {.initial = 10ms});
  informer.set_page_size(3);
  informer.Start();
  ASSERT_TRUE(recorder_.WaitForLog(4)) << ::testing::PrintToString(recorder_.Log());
  EXPECT_EQ(recorder_.Log(), (std::vector<std::string>{"LIST 7", "EVENT zz@" + added,
                                                       "EVENT g@" + modified, "DELETED f"}));
  EXPECT_EQ(informer.lists(), 1);
  EXPECT_EQ(informer.pages(), 3);
  EXPECT_EQ(server_->listPages(), 3);
  EXPECT_EQ(server_->watchesOpened(), 1);
  EXPECT_TRUE(recorder_.Errors().empty()) << recorder_.Errors()[0];
  EXPECT_EQ(recorder_.Objects(), Truth());
}

TEST_F(InformerPagingTest, AContinueTokenThatExpiresStartsTheListAgainFromItsFirstPage) {
  for (const char* name : {"a", "b", "c", "d", "e"}) server_->Create(kPods, Pod(name));
  server_->ExpireContinueTokens(1);
  Informer informer(*client_, kPods, recorder_.Handlers(), {.initial = 10ms});
  informer.set_page_size(2);
  informer.Start();
  ASSERT_TRUE(recorder_.WaitForLog(1));
  std::string marker = Rv(server_->Create(kPods, Pod("m")));  // and it watches
  ASSERT_TRUE(recorder_.WaitForLog(2));
  // One list delivered: the abandoned one's first page never reached the handler's state.
  EXPECT_EQ(recorder_.Log(), (std::vector<std::string>{"LIST 5", "EVENT m@" + marker}));
  EXPECT_EQ(recorder_.Objects(), Truth());
  EXPECT_EQ(informer.lists(), 1);
  EXPECT_EQ(informer.pages(), 1 + 3);
  EXPECT_EQ(server_->continuesExpired(), 1);
  ASSERT_EQ(recorder_.Errors().size(), 1u);
  EXPECT_EQ(recorder_.Errors()[0],
            "/api/v1/namespaces/team-a/pods: list (page 2): HTTP 410: The provided continue "
            "parameter is too old to display a consistent list result. You can start a new list "
            "without the continue parameter.; listing again from the start");
}

TEST_F(InformerPagingTest, AHistoryCompactedMidListStartsTheListAgainWithTheNewObjects) {
  for (const char* name : {"a", "b", "c", "d", "e"}) server_->Create(kPods, Pod(name));
  recorder_.duringList = [&] {
    server_->Create(kPods, Pod("late"));
    server_->ExpireHistory();  // the first list's snapshot is gone
  };
  Informer informer(*client_, kPods, recorder_.Handlers(), {.initial = 10ms});
  informer.set_page_size(2);
  informer.Start();
  ASSERT_TRUE(recorder_.WaitForLog(1));
  EXPECT_EQ(recorder_.Log(), std::vector<std::string>{"LIST 6"});
  std::string marker = Rv(server_->Create(kPods, Pod("m")));
  ASSERT_TRUE(recorder_.WaitForLog(2));
  EXPECT_EQ(recorder_.Log().back(), "EVENT m@" + marker);
  EXPECT_EQ(recorder_.Objects(), Truth());
  EXPECT_EQ(server_->continuesExpired(), 1);
  EXPECT_EQ(informer.lists(), 1);
}

}  // namespace
}  // namespace gpugate::cluster
