#include "cli/audit_report.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/report_testing.h"

namespace gpugate::cli {
namespace {

using policy::Mode;

AuditFinding Finding(std::string ns, std::string name, Mode mode) {
  return testing::HalfGpuFinding<AuditFinding>(std::move(ns), std::move(name), mode);
}

OverLimit Over(std::string ns, Mode mode) {
  quota::Excess excess = quota::OverLimits({{"nvidia.com/gpu", 4000}}, {{"nvidia.com/gpu", 6000}});
  std::string message = quota::OverLimitMessage(ns, excess);
  return {.ns = std::move(ns), .mode = mode, .excess = excess, .message = message};
}

TEST(AuditReport, ExitStatus) {
  const struct {
    std::string name;
    AuditReport report;
    int want;
  } cases[] = {
      {"nothing found", {}, 0},
      {"a finding in deny mode", {.findings = {Finding("a", "p", Mode::kDeny)}}, 1},
      {"only warn and audit",
       {.findings = {Finding("a", "p", Mode::kWarn), Finding("a", "q", Mode::kAudit)}},
       0},
      {"a namespace over its limits, even in warn mode",
       {.overLimit = {Over("a", Mode::kWarn)}},
       1},
      {"a kind not listed, nothing denied",
       {.findings = {Finding("a", "p", Mode::kWarn)}, .errors = {{"pods", "HTTP 403"}}},
       2},
      // A partial audit can still show a denial; it cannot show there is none.
      {"a kind not listed, and a denial",
       {.findings = {Finding("a", "p", Mode::kDeny)}, .errors = {{"pods", "HTTP 403"}}},
       1},
      {"notes change nothing", {.notes = {"jobs.batch.volcano.sh: not served"}}, 0},
  };
  for (const auto& c : cases) EXPECT_EQ(AuditExitStatus(c.report), c.want) << c.name;
}

AuditReport Sample() {
  AuditReport report{
      .findings = {Finding("team-a", "p", Mode::kDeny),
                   Finding("team-bb", "longer-name", Mode::kWarn)},
      .overLimit = {Over("team-c", Mode::kWarn)},
      .errors = {{"deployments.apps", "list: HTTP 403: forbidden"}},
      .notes = {"jobs.batch.volcano.sh: not served by this cluster (no such resource)"}};
  report.counts = {.scanned = {{"Pod", 3}, {"Deployment", 0}},
                   .exempt = 1,
                   .finished = 1,
                   .deleting = 0,
                   .withFindings = 2};
  return report;
}

TEST(AuditReport, TablesThenErrorsAndNotesThenTheSummary) {
  std::ostringstream out, err;
  WriteAuditTable(Sample(), out, err);
  EXPECT_EQ(out.str(),
            "NAMESPACE   MODE   OBJECT            RULE          MESSAGE\n"
            "team-a      deny   Pod/p             whole-units   spec.containers[0] \"a\": "
            "nvidia.com/gpu limit \"0.5\" must be a whole number of GPUs\n"
            "team-bb     warn   Pod/longer-name   whole-units   spec.containers[0] \"a\": "
            "nvidia.com/gpu limit \"0.5\" must be a whole number of GPUs\n"
            "\n"
            "NAMESPACE   MODE   RESOURCE         USED   LIMIT\n"
            "team-c      warn   nvidia.com/gpu   6      4\n"
            "\n"
            "scanned 3 objects (3 Pod): 2 findings in 2 objects (1 deny, 1 warn, 0 "
            "audit); 1 namespace over its limits; skipped 1 in exempt namespaces, 1 finished pod, "
            "0 being deleted; 1 collection not listed\n");
  EXPECT_EQ(err.str(),
            "error: deployments.apps: list: HTTP 403: forbidden\n"
            "note: jobs.batch.volcano.sh: not served by this cluster (no such resource)\n");
}

TEST(AuditReport, NothingFoundIsTheSummaryAlone) {
  std::ostringstream out, err;
  AuditReport report;
  report.counts.scanned = {{"Pod", 2}};
  WriteAuditTable(report, out, err);
  EXPECT_EQ(out.str(),
            "scanned 2 objects (2 Pod): 0 findings in 0 objects (0 deny, 0 warn, 0 audit); 0 "
            "namespaces over their limits; skipped 0 in exempt namespaces, 0 finished pods, 0 "
            "being deleted\n");
  EXPECT_EQ(err.str(), "");
}

TEST(AuditReport, JsonCarriesEveryFieldAndTheSummary) {
  const nlohmann::json out = nlohmann::json::parse(RenderAuditJson(Sample()));
  EXPECT_EQ(out["findings"][0], (nlohmann::json{{"namespace", "team-a"},
                                                {"kind", "Pod"},
                                                {"name", "p"},
                                                {"rule", "whole-units"},
                                                {"mode", "deny"},
                                                {"message", Sample().findings[0].message}}));
  EXPECT_EQ(
      out["overLimit"][0],
      (nlohmann::json{
          {"namespace", "team-c"},
          {"mode", "warn"},
          {"resources", {{{"resource", "nvidia.com/gpu"}, {"used", "6"}, {"limit", "4"}}}},
          {"message", "over quota: team-c, used: nvidia.com/gpu=6, limited: nvidia.com/gpu=4"}}));
  EXPECT_EQ(out["errors"][0]["collection"], "deployments.apps");
  EXPECT_EQ(out["notes"].size(), 1u);
  const auto& summary = out["summary"];
  EXPECT_EQ(summary["objects"], 3);
  EXPECT_EQ(summary["scanned"], (nlohmann::json{{"Pod", 3}, {"Deployment", 0}}));
  EXPECT_EQ(summary["findings"], (nlohmann::json{{"deny", 1}, {"warn", 1}, {"audit", 0}}));
  EXPECT_EQ(summary["namespacesOverLimit"], 1);
  EXPECT_EQ(summary["unlisted"], 1);
  EXPECT_EQ(summary["text"], AuditSummary(Sample()));
}

}  // namespace
}  // namespace gpugate::cli
