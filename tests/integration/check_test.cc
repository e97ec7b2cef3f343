// `gpugate check` as a CI pipeline runs it: the real binary over the manifests in
// tests/testdata/check/, run from that directory so the paths it prints are the ones a user
// would see. Each case's exact output (stdout and stderr as one stream) and exit status are in
// tests/testdata/check/golden/<case>.txt; UPDATE_GOLDEN=1 rewrites them, and a golden file no
// case writes fails the test.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "golden_files.h"
#include "gpugate_process.h"
#include "kubectl.h"
#include "test_paths.h"

namespace gpugate::testing {
namespace {

namespace fs = std::filesystem;

const fs::path kCheckDir = fs::path(GPUGATE_SOURCE_DIR) / "tests" / "testdata" / "check";

struct CheckCase {
  std::string name;  // golden/<name>.txt
  std::vector<std::string> args;
  std::string stdinFile;  // fed to standard input; "" for none
  int exitStatus;
};

const CheckCase kCases[] = {
    {"multi-doc", {"-f", "multi-doc.yaml"}, "", 1},
    {"multi-doc-json", {"-f", "multi-doc.yaml", "-o", "json"}, "", 1},
    {"json-list", {"-f", "list.json"}, "", 1},
    {"directory-tree", {"-f", "tree"}, "", 1},
    {"helm-template", {"-f", "helm-template.yaml"}, "", 1},
    {"stdin", {"-f", "-"}, "helm-template.yaml", 1},
    {"clean", {"-f", "tree/batch/clean.yaml", "-f", "tree/apps/service.yml"}, "", 0},
    {"clean-json", {"-ojson", "-f", "tree/batch/clean.yaml"}, "", 0},
    {"config", {"--config", "max-one-gpu.config.yaml", "-f", "multi-doc.yaml"}, "", 1},
    {"syntax-error", {"-f", "syntax-error.yaml"}, "", 2},
    {"syntax-error-json",
     {"-f", "syntax-error.yaml", "-f", "multi-doc.yaml", "--output=json"},
     "",
     2},
    {"missing-file", {"-f", "no-such.yaml", "-f", "tree/batch/clean.yaml"}, "", 2},
    // Modes: warn and audit findings are reported, and only deny fails.
    {"rollout", {"--config", "rollout.config.yaml", "-f", "rollout.yaml"}, "", 1},
    {"rollout-json",
     {"--config", "rollout.config.yaml", "-f", "rollout.yaml", "-o", "json"},
     "",
     1},
    {"rollout-warnings-only", {"--config", "rollout.config.yaml", "-f", "multi-doc.yaml"}, "", 0},
};

// What the golden file holds: the command, the exit status, then the output.
std::string Render(const CheckCase& c, const Exit& run) {
  std::string command = "$ gpugate check";
  for (const std::string& arg : c.args) command += " " + arg;
  if (!c.stdinFile.empty()) command += " < " + c.stdinFile;
  return command + "\nexit status " + std::to_string(run.code) + "\n" + run.output;
}

// Runs `gpugate check ARGS` in tests/testdata/check/ with `stdinFile` (or /dev/null) as input.
Exit RunCheck(const CheckCase& c) {
  std::vector<std::string> args = {
      "-c",
      "cd \"$1\" && input=\"$2\" && shift 2 && exec \"$@\" < \"$input\"",
      "sh",
      kCheckDir.string(),
      c.stdinFile.empty() ? "/dev/null" : c.stdinFile,
      GPUGATE_BINARY,
      "check"};
  args.insert(args.end(), c.args.begin(), c.args.end());
  return RunProgram("/bin/sh", args);
}

TEST(Check, OutputAndExitStatusMatchGoldenFiles) {
  GoldenFiles golden(kCheckDir / "golden");
  for (const CheckCase& c : kCases) {
    SCOPED_TRACE(c.name);
    const Exit run = RunCheck(c);
    EXPECT_EQ(run.code, c.exitStatus) << run.output;
    golden.Compare(c.name + ".txt", Render(c, run));
  }
}

// The JSON is for programs: every finding has every field, and the summary adds up.
TEST(Check, JsonFindingsCarryEveryFieldAndTheSummaryAddsUp) {
  const Exit run = RunCheck({"all", {"-o", "json", "-f", "."}, "", 2});
  ASSERT_EQ(run.code, 2) << run.output;  // syntax-error.yaml is in the directory
  const nlohmann::json out = nlohmann::json::parse(run.output);
  ASSERT_FALSE(out["findings"].empty());
  for (const auto& finding : out["findings"]) {
    for (const char* field :
         {"file", "line", "kind", "namespace", "name", "reason", "message", "severity"}) {
      EXPECT_TRUE(finding.contains(field)) << field << " missing from " << finding.dump();
    }
    EXPECT_EQ(finding["severity"], "deny");
    EXPECT_GT(finding["line"].get<int>(), 0);
  }
  const auto& summary = out["summary"];
  EXPECT_EQ(summary["objects"].get<int>(),
            summary["denied"].get<int>() + summary["warned"].get<int>() +
                summary["audited"].get<int>() + summary["allowed"].get<int>() +
                summary["exempt"].get<int>() + summary["withoutPodSpec"].get<int>());
  EXPECT_EQ(summary["denied"].get<size_t>(), out["findings"].size());
  EXPECT_EQ(summary["unreadable"], 1);
  EXPECT_EQ(summary["quotaChecked"], false);
}

TEST(Check, UsageErrorsExitTwo) {
  const struct {
    std::vector<std::string> args;
    std::string output;
  } cases[] = {
      {{}, "gpugate check: needs -f FILE, -f DIR or -f - (stdin)\n"},
      {{"multi-doc.yaml"},
       "gpugate check: unexpected argument \"multi-doc.yaml\"; name manifests with -f\n"},
      {{"-f", "multi-doc.yaml", "-o", "yaml"},
       "gpugate check: -o must be text or json, got \"yaml\"\n"},
      {{"-f"}, "gpugate check: flag -f needs a value\n"},
      {{"--config", "no-such.yaml", "-f", "multi-doc.yaml"},
       "gpugate check: no-such.yaml: cannot read: No such file or directory\n"},
      {{"--config", "multi-doc.yaml", "-f", "multi-doc.yaml"},
       "gpugate check: multi-doc.yaml:18: only one YAML document is allowed\n"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(::testing::PrintToString(c.args));
    const Exit run = RunCheck({"usage", c.args, "", 2});
    EXPECT_EQ(run.code, 2);
    EXPECT_EQ(run.output, c.output);
  }
}

// `kubectl kustomize` piped into `gpugate check -f -`, as a pipeline runs it: gpugate's own
// manifests (one Deployment, the rest without pod specs) pass. Skipped without a usable kubectl.
TEST(Check, KustomizeOutputOfTheShippedManifestsPasses) {
  const Result<Kubectl>& kubectl = UsableKubectl();
  if (!kubectl) GTEST_SKIP() << kubectl.error().message;
  auto rendered = RunKubectl(kubectl->path,
                             {"kustomize", (fs::path(GPUGATE_SOURCE_DIR) / "manifests").string()});
  ASSERT_TRUE(rendered) << rendered.error().message;
  TempDir dir;
  dir.Write("rendered.yaml", *rendered);
  const Exit run = RunProgram("/bin/sh", {"-c", "exec \"$1\" check -f - < \"$2\"", "sh",
                                          GPUGATE_BINARY, dir.File("rendered.yaml")});
  EXPECT_EQ(run.code, 0) << run.output;
  EXPECT_NE(run.output.find(": 0 denied, 0 warned, 0 audited, 1 allowed, 0 exempt, "),
            std::string::npos)
      << run.output;
}

}  // namespace
}  // namespace gpugate::testing
