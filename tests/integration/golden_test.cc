// Golden AdmissionReview files: tests/testdata/<route>/<case>.request.json is sent through the
// codec and the handler; the response (with its JSON Patch decoded for reading) must equal
// <case>.golden.json. An optional <case>.config.yaml configures the handler; cases named
// "<group>--<case>" share <group>.config.yaml (beside them, or in tests/testdata/). A config with a
// quota section gives the handler a local ledger in memory, empty for each case. UPDATE_GOLDEN=1
// rewrites the golden files; a golden file without a request fails.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "admission/handler.h"
#include "config/config.h"
#include "gpugate_process.h"
#include "quota/ledger.h"
#include "review/admission_review.h"
#include "review_builder.h"
#include "test_paths.h"

namespace gpugate::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kTestdata = fs::path(GPUGATE_SOURCE_DIR) / "tests" / "testdata";
constexpr std::string_view kRequestSuffix = ".request.json";
constexpr std::string_view kGoldenSuffix = ".golden.json";

bool EndsWith(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string CaseName(const fs::path& p, std::string_view suffix) {
  std::string name = p.filename().string();
  return name.substr(0, name.size() - suffix.size());
}

config::Config ConfigFor(const fs::path& dir, const std::string& name) {
  fs::path yaml = dir / (name + ".config.yaml");
  if (size_t group = name.find("--"); !fs::exists(yaml) && group != std::string::npos) {
    yaml = dir / (name.substr(0, group) + ".config.yaml");
    if (!fs::exists(yaml)) yaml = dir.parent_path() / (name.substr(0, group) + ".config.yaml");
  }
  if (!fs::exists(yaml)) return {};
  auto cfg = config::LoadConfigFile(yaml.string());
  EXPECT_TRUE(cfg) << cfg.error().message;
  return cfg ? *cfg : config::Config{};
}

bool HasQuota(const quota::QuotaConfig& q) { return !q.limits.empty() || !q.flavors.empty(); }

// What a reader compares: the response review, plus its patch decoded.
std::string Render(const std::string& route, const fs::path& dir, const std::string& name) {
  std::string body = ReadFile((dir / (name + std::string(kRequestSuffix))).string());
  auto request = review::DecodeReview(body);
  if (!request) return "decode error: " + request.error().message + "\n";
  config::Config cfg = ConfigFor(dir, name);
  quota::Ledger ledger(cfg.quota, /*journal=*/nullptr);
  EXPECT_TRUE(ledger.Open());
  admission::Handler handler(cfg.policy, HasQuota(cfg.quota) ? &ledger : nullptr);
  review::Decision d = route == "mutate" ? handler.Mutate(*request) : handler.Validate(*request);
  json response = json::parse(review::EncodeResponse(*request, d));
  json out = {{"response", response}, {"decodedPatch", DecodedPatch(response)}};
  return out.dump(2) + "\n";
}

TEST(Golden, ReviewsMatchGoldenFiles) {
  const bool update = std::getenv("UPDATE_GOLDEN") != nullptr;
  int cases = 0;
  for (const std::string route : {"validate", "mutate"}) {
    fs::path dir = kTestdata / route;
    ASSERT_TRUE(fs::is_directory(dir)) << dir;
    for (const auto& entry : fs::directory_iterator(dir)) {
      const std::string file = entry.path().filename().string();
      if (EndsWith(file, kGoldenSuffix)) {
        std::string name = CaseName(entry.path(), kGoldenSuffix);
        EXPECT_TRUE(fs::exists(dir / (name + std::string(kRequestSuffix))))
            << route << "/" << file << " has no request file";
        continue;
      }
      if (!EndsWith(file, kRequestSuffix)) continue;  // a request, or a shared config
      std::string name = CaseName(entry.path(), kRequestSuffix);
      fs::path golden = dir / (name + std::string(kGoldenSuffix));
      std::string got = Render(route, dir, name);
      ++cases;
      if (update) {
        std::ofstream(golden) << got;
        continue;
      }
      ASSERT_TRUE(fs::exists(golden))
          << route << "/" << name << ": missing golden file; run with UPDATE_GOLDEN=1";
      EXPECT_EQ(got, ReadFile(golden.string())) << route << "/" << name;
    }
  }
  EXPECT_GE(cases, 20);
}

}  // namespace
}  // namespace gpugate::testing
