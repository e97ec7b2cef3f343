#include "cli/check_report.h"

#include <gtest/gtest.h>

#include <sstream>

namespace gpugate::cli {
namespace {

Finding Denial(std::string file, int line, std::string name) {
  return Finding{.at = {std::move(file), line},
                 .kind = "Pod",
                 .ns = "team-a",
                 .name = std::move(name),
                 .reason = "whole-units",
                 .message =
                     "spec.containers[0] \"a\": nvidia.com/gpu limit \"0.5\" must be a "
                     "whole number of GPUs",
                 .severity = Severity::kDeny};
}

Finding WithSeverity(Finding f, Severity severity, std::string message) {
  f.severity = severity;
  f.message = std::move(message);
  return f;
}

TEST(CheckReport, ExitStatusFromErrorsAndSeverities) {
  EXPECT_TRUE(FailsCheck(Severity::kDeny));
  EXPECT_FALSE(FailsCheck(Severity::kWarn));
  EXPECT_FALSE(FailsCheck(Severity::kAudit));
  EXPECT_EQ(SeverityName(Severity::kDeny), "deny");
  EXPECT_EQ(SeverityName(Severity::kWarn), "warn");
  EXPECT_EQ(SeverityName(Severity::kAudit), "audit");
  const Finding warning = WithSeverity(Denial("a.yaml", 3, "p"), Severity::kWarn, "w");
  const struct {
    std::string name;
    CheckReport report;
    int want;
  } cases[] = {
      {"nothing found", {}, 0},
      {"a denial", {.findings = {Denial("a.yaml", 3, "p")}}, 1},
      {"only warnings and audit annotations",
       {.findings = {warning, WithSeverity(warning, Severity::kAudit, "x")}},
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
                   WithSeverity(Denial("-", 1, "q"), Severity::kWarn, "privileged"),
                   WithSeverity(Denial("-", 9, "r"), Severity::kAudit, "skips the scheduler")},
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
