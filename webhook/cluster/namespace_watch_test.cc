// The namespace watch against the stand-in API server: labels read at the first list, changed
// by `kubectl label` as the watch delivers it, a typo read as deny and reported once, a deleted
// namespace forgotten, and a relist after expired history.
#include "cluster/namespace_watch.h"

#include <gtest/gtest.h>

#include <mutex>
#include <thread>

#include "standin/standin.h"
#include "support/eventually.h"

namespace gpugate::cluster {
namespace {

using gpugate::testing::StandInApiServer;
using nlohmann::json;
using policy::Mode;

constexpr char kToken[] = "stand-in-token";
constexpr char kNamespaces[] = "/api/v1/namespaces";

json Namespace(const std::string& name, json labels) {
  json ns = {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", name}}}};
  labels["kubernetes.io/metadata.name"] = name;
  ns["metadata"]["labels"] = std::move(labels);
  return ns;
}

using gpugate::testing::Eventually;
// How long a watch may take to deliver what the stand-in was just told.
constexpr std::chrono::seconds kWait{5};

// "mode=warn mutate=false", "mode=- mutate=-" for none.
std::string Render(const policy::NamespaceLabels& l) {
  return std::string("mode=") + (l.mode ? std::string(policy::ModeName(*l.mode)) : "-") +
         " mutate=" + (l.mutate ? (*l.mutate ? "true" : "false") : "-");
}

TEST(GpugateLabels, ReadsOnlyGpugatesLabels) {
  const struct {
    json ns;
    std::string want;  // Render(...), or "none"
  } cases[] = {
      {Namespace("a", {{"team", "ml"}}), "none"},
      {Namespace("b", {{"gpugate.io/mode", "warn"}}), "mode=warn mutate=-"},
      {Namespace("c", {{"gpugate.io/mutate", "false"}}), "mode=- mutate=false"},
      {Namespace("d", {{"gpugate.io/mode", "enforce"}}), "mode=deny mutate=-"},  // a typo: deny
      {json{{"metadata", {{"name", "e"}}}}, "none"},
      {json::array(), "none"},
  };
  for (const auto& c : cases) {
    std::optional<policy::ParsedLabels> got = GpugateLabels(c.ns);
    EXPECT_EQ(got ? Render(got->labels) : "none", c.want) << c.ns.dump();
  }
  EXPECT_FALSE(GpugateLabels(Namespace("d", {{"gpugate.io/mode", "enforce"}}))->problem.empty());
}

class NamespaceWatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = std::make_unique<StandInApiServer>(StandInApiServer::Options{.token = kToken});
    client_ = server_->InMemoryClient();
    watch_ = std::make_unique<NamespaceWatch>(*client_, [this](const std::string& message) {
      std::lock_guard lock(mu_);
      errors_.push_back(message);
    });
  }

  std::string Labels(const std::string& ns) { return Render(watch_->Labels(ns)); }
  std::vector<std::string> Errors() {
    std::lock_guard lock(mu_);
    return errors_;
  }

  std::unique_ptr<StandInApiServer> server_;
  std::unique_ptr<ApiClient> client_;
  std::unique_ptr<NamespaceWatch> watch_;
  std::mutex mu_;
  std::vector<std::string> errors_;  // guarded by mu_
};

TEST_F(NamespaceWatchTest, ReadsLabelsAtTheFirstListAndFollowsChanges) {
  server_->Create(kNamespaces, Namespace("team-a", {{"gpugate.io/mode", "warn"}}));
  server_->Create(kNamespaces, Namespace("lab", {{"gpugate.io/mutate", "false"}}));
  server_->Create(kNamespaces, Namespace("plain", {{"team", "x"}}));
  EXPECT_FALSE(watch_->Ready());
  EXPECT_EQ(Labels("team-a"), "mode=- mutate=-") << "nothing before the first list";
  watch_->Start();
  ASSERT_TRUE(Eventually([&] { return watch_->Ready(); }, kWait));
  EXPECT_EQ(Labels("team-a"), "mode=warn mutate=-");
  EXPECT_EQ(Labels("lab"), "mode=- mutate=false");
  EXPECT_EQ(Labels("plain"), "mode=- mutate=-");
  EXPECT_EQ(Labels("unknown"), "mode=- mutate=-");

  // kubectl label ns team-a gpugate.io/mode=deny --overwrite; a new namespace; a removed label.
  server_->Update(std::string(kNamespaces) + "/team-a",
                  Namespace("team-a", {{"gpugate.io/mode", "deny"}}));
  server_->Create(kNamespaces, Namespace("team-b", {{"gpugate.io/mode", "audit"}}));
  server_->Update(std::string(kNamespaces) + "/lab", Namespace("lab", json::object()));
  EXPECT_TRUE(Eventually(
      [&] {
        return Labels("team-a") == "mode=deny mutate=-" &&
               Labels("team-b") == "mode=audit mutate=-" && Labels("lab") == "mode=- mutate=-";
      },
      kWait))
      << Labels("team-a") << " / " << Labels("team-b") << " / " << Labels("lab");

  server_->Delete(std::string(kNamespaces) + "/team-b");
  EXPECT_TRUE(Eventually([&] { return Labels("team-b") == "mode=- mutate=-"; }, kWait));
  EXPECT_TRUE(Errors().empty()) << ::testing::PrintToString(Errors());
}

TEST_F(NamespaceWatchTest, ATypoDeniesAndIsReportedOncePerValue) {
  server_->Create(kNamespaces, Namespace("team-a", {{"gpugate.io/mode", "Warn"}}));
  watch_->Start();
  ASSERT_TRUE(Eventually([&] { return watch_->Ready(); }, kWait));
  EXPECT_EQ(Labels("team-a"), "mode=deny mutate=-");
  // Another label changes: the same typo is not reported again.
  server_->Update(std::string(kNamespaces) + "/team-a",
                  Namespace("team-a", {{"gpugate.io/mode", "Warn"}, {"owner", "ml"}}));
  server_->Update(std::string(kNamespaces) + "/team-a",
                  Namespace("team-a", {{"gpugate.io/mode", "warm"}}));
  EXPECT_TRUE(Eventually([&] { return Errors().size() == 2; }, kWait));
  EXPECT_EQ(
      Errors(),
      (std::vector<std::string>{
          R"(namespace team-a: gpugate.io/mode "Warn" is not deny, warn or audit; denying as with deny)",
          R"(namespace team-a: gpugate.io/mode "warm" is not deny, warn or audit; denying as with deny)"}));
  EXPECT_EQ(Labels("team-a"), "mode=deny mutate=-");
}

TEST_F(NamespaceWatchTest, ARelistAfterExpiredHistoryReplacesEveryLabel) {
  server_->Create(kNamespaces, Namespace("team-a", {{"gpugate.io/mode", "warn"}}));
  server_->Create(kNamespaces, Namespace("team-b", {{"gpugate.io/mode", "audit"}}));
  watch_->Start();
  ASSERT_TRUE(Eventually([&] { return Labels("team-b") == "mode=audit mutate=-"; }, kWait));
  // Changes the watch misses: history expired while the stream was down.
  server_->BreakWatches();
  server_->Delete(std::string(kNamespaces) + "/team-b");
  server_->Update(std::string(kNamespaces) + "/team-a",
                  Namespace("team-a", {{"gpugate.io/mode", "deny"}}));
  server_->ExpireHistory();
  EXPECT_TRUE(Eventually(
      [&] {
        return Labels("team-a") == "mode=deny mutate=-" && Labels("team-b") == "mode=- mutate=-";
      },
      kWait))
      << Labels("team-a") << " / " << Labels("team-b");
}

}  // namespace
}  // namespace gpugate::cluster
