#include "cli/check_report.h"

#include <gtest/gtest.h>

#include <sstream>

#include "cli/exit_status.h"
#include "cli/report_testing.h"

namespace gpugate::cli {
namespace {

using policy::Mode;

Finding Denial(std::string file, int line, std::string name) {
  Finding f = testing::HalfGpuFinding<Finding>("team-a", std::move(name), Mode::kDeny);
  f.at = {std::move(file), line};
  return f;
}

Finding WithSeverity(Finding f, Mode severity, std::string message) {
  f.mode = severity;
  f.message = std::move(message);
  return f;
}

TEST(CheckReport, ExitStatusFromErrorsAndSeverities) {
  EXPECT_TRUE(FailsRun(Mode::kDeny));
  EXPECT_FALSE(FailsRun(Mode::kWarn));
  EXPECT_FALSE(FailsRun(Mode::kAudit));
  EXPECT_EQ(policy::ModeName(Mode::kDeny), "deny");
  EXPECT_EQ(policy::ModeName(Mode::kWarn), "warn");
  EXPECT_EQ(policy::ModeName(Mode::kAudit), "audit");
  const Finding warning = WithSeverity(Denial("a.yaml", 3, "p"), Mode::kWarn, "w");
  const struct {
    std::string name;
    CheckReport report;
    int want;
  } cases[] = {
      {"nothing found", {}, 0},
      {"a denial", {.findings = {Denial("a.yaml", 3, "p")}}, 1},
      {"only warnings and audit annotations",
       {.findings = {warning, WithSeverity(warning, Mode::kAudit, "x")}},
       0},
      {"a warning and a denial", {.findings = {warning, Denial("a.yaml", 9, "q")}}, 1},
      {"unreadable input wins",
       {.findings = {Denial("a.yaml", 3, "p")}, .errors = {{{"b", 2}, "x"}}},
       2},
      {"unreadable input alone", {.errors = {{{"b", 0}, "cannot read"}}}, 2},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(ExitStatus(c.report), c.want) << c.name;
  }
}

TEST(CheckReport, TextHasOneLinePerFindingErrorsApartAndTheSummary) {
  CheckReport report{
      .findings = {Denial("a.yaml", 3, "p"), Denial("-", 1, "q"),
                   WithSeverity(Denial("-", 1, "q"), Mode::kWarn, "privileged"),
                   WithSeverity(Denial("-", 9, "r"), Mode::kAudit, "skips the scheduler")},
      .errors = {{{"b.yaml", 7}, "invalid YAML: illegal map value"},
                 {{"c", 0}, "cannot read: Permission denied"}},
      .counts = {.files = 4, .objects = 4, .denied = 2, .audited = 1, .withoutPodSpec = 1}};
  std::ostringstream out, err;
  WriteText(report, out, err);
  EXPECT_EQ(out.str(),
            "a.yaml:3: Pod/p: spec.containers[0] \"a\": nvidia.com/gpu limit \"0.5\" must be a "
            "whole number of GPUs\n"
            "-:1: Pod/q: spec.containers[0] \"a\": nvidia.com/gpu limit \"0.5\" must be a whole "
            "number of GPUs\n"
            "-:1: Pod/q: warning: privileged\n"
            "-:9: Pod/r: audit: skips the scheduler\n"
            "checked 4 objects in 4 files: 2 denied, 0 warned, 1 audited, 0 allowed, 0 exempt, "
            "1 without a pod spec; 2 files unreadable; quota not checked (it needs the cluster's "
            "state)\n");
  EXPECT_EQ(err.str(),
            "b.yaml:7: error: invalid YAML: illegal map value\n"
            "c: error: cannot read: Permission denied\n");
}

}  // namespace
}  // namespace gpugate::cli
