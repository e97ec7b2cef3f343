#include "cli/audit_report.h"

#include <nlohmann/json.hpp>

#include "cli/exit_status.h"
#include "common/text_table.h"

namespace gpugate::cli {
namespace {

using Json = nlohmann::ordered_json;  // fields in the order a reader expects them

std::string Count(size_t n, std::string_view one, std::string_view many) {
  return std::to_string(n) + " " + std::string(n == 1 ? one : many);
}

size_t FindingsIn(const AuditReport& report, policy::Mode mode) {
  size_t n = 0;
  for (const AuditFinding& f : report.findings) n += f.mode == mode;
  return n;
}

size_t Scanned(const AuditCounts& counts) {
  size_t n = 0;
  for (const auto& [kind, count] : counts.scanned) n += count;
  return n;
}

std::string FindingsTable(const std::vector<AuditFinding>& findings) {
  std::vector<std::vector<std::string>> rows;
  for (const AuditFinding& f : findings) {
    rows.push_back(
        {f.ns, std::string(policy::ModeName(f.mode)), f.kind + "/" + f.name, f.rule, f.message});
  }
  return RenderTable({"NAMESPACE", "MODE", "OBJECT", "RULE", "MESSAGE"}, rows);
}

std::string OverLimitTable(const std::vector<OverLimit>& overLimit) {
  std::vector<std::vector<std::string>> rows;
  for (const OverLimit& o : overLimit) {
    for (const auto& [resource, used] : o.excess.used) {
      rows.push_back({o.ns, std::string(policy::ModeName(o.mode)), resource,
                      quota::FormatMilli(used), quota::FormatMilli(o.excess.limited.at(resource))});
    }
  }
  return RenderTable({"NAMESPACE", "MODE", "RESOURCE", "USED", "LIMIT"}, rows);
}

Json OverLimitJson(const OverLimit& o) {
  Json resources = Json::array();
  for (const auto& [resource, used] : o.excess.used) {
    resources.push_back({{"resource", resource},
                         {"used", quota::FormatMilli(used)},
                         {"limit", quota::FormatMilli(o.excess.limited.at(resource))}});
  }
  return Json{{"namespace", o.ns},
              {"mode", policy::ModeName(o.mode)},
              {"resources", std::move(resources)},
              {"message", o.message}};
}

Json SummaryJson(const AuditReport& report) {
  const AuditCounts& c = report.counts;
  Json scanned = Json::object();
  for (const auto& [kind, count] : c.scanned) scanned[kind] = count;
  return Json{{"objects", Scanned(c)},
              {"scanned", std::move(scanned)},
              {"findings",
               {{"deny", FindingsIn(report, policy::Mode::kDeny)},
                {"warn", FindingsIn(report, policy::Mode::kWarn)},
                {"audit", FindingsIn(report, policy::Mode::kAudit)}}},
              {"objectsWithFindings", c.withFindings},
              {"namespacesOverLimit", report.overLimit.size()},
              {"exempt", c.exempt},
              {"finished", c.finished},
              {"deleting", c.deleting},
              {"unlisted", report.errors.size()},
              {"text", AuditSummary(report)}};
}

}  // namespace

int AuditExitStatus(const AuditReport& report) {
  RunOutcome run{.unread = report.errors.empty() ? Unread::kNothing : Unread::kUnreachable};
  run.wouldDeny = !report.overLimit.empty();
  for (const AuditFinding& f : report.findings) run.wouldDeny = run.wouldDeny || FailsRun(f.mode);
  return ExitStatusOf(run);
}

std::string AuditSummary(const AuditReport& report) {
  const AuditCounts& c = report.counts;
  std::string kinds;
  for (const auto& [kind, count] : c.scanned) {  // the kinds found; JSON lists every kind listed
    if (count > 0) kinds += (kinds.empty() ? "" : ", ") + std::to_string(count) + " " + kind;
  }
  std::string line = "scanned " + Count(Scanned(c), "object", "objects");
  if (!kinds.empty()) line += " (" + kinds + ")";
  line += ": " + Count(report.findings.size(), "finding", "findings") + " in " +
          Count(c.withFindings, "object", "objects") + " (" +
          std::to_string(FindingsIn(report, policy::Mode::kDeny)) + " deny, " +
          std::to_string(FindingsIn(report, policy::Mode::kWarn)) + " warn, " +
          std::to_string(FindingsIn(report, policy::Mode::kAudit)) + " audit); " +
          Count(report.overLimit.size(), "namespace", "namespaces") + " over " +
          (report.overLimit.size() == 1 ? "its" : "their") + " limits; skipped " +
          std::to_string(c.exempt) + " in exempt namespaces, " +
          Count(c.finished, "finished pod", "finished pods") + ", " + std::to_string(c.deleting) +
          " being deleted";
  if (!report.errors.empty()) {
    line += "; " + Count(report.errors.size(), "collection", "collections") + " not listed";
  }
  return line;
}

void WriteAuditTable(const AuditReport& report, std::ostream& out, std::ostream& err) {
  if (!report.findings.empty()) out << FindingsTable(report.findings);
  if (!report.overLimit.empty()) {
    if (!report.findings.empty()) out << "\n";
    out << OverLimitTable(report.overLimit);
  }
  if (!report.findings.empty() || !report.overLimit.empty()) out << "\n";
  out.flush();  // errors and notes after the tables, also where both streams share one pipe
  for (const AuditError& e : report.errors) err << "error: " << e.what << ": " << e.message << "\n";
  for (const std::string& note : report.notes) err << "note: " << note << "\n";
  err.flush();
  out << AuditSummary(report) << "\n";
}

std::string RenderAuditJson(const AuditReport& report) {
  Json findings = Json::array();
  for (const AuditFinding& f : report.findings) {
    findings.push_back({{"namespace", f.ns},
                        {"kind", f.kind},
                        {"name", f.name},
                        {"rule", f.rule},
                        {"mode", policy::ModeName(f.mode)},
                        {"message", f.message}});
  }
  Json overLimit = Json::array();
  for (const OverLimit& o : report.overLimit) overLimit.push_back(OverLimitJson(o));
  Json errors = Json::array();
  for (const AuditError& e : report.errors) {
    errors.push_back({{"collection", e.what}, {"message", e.message}});
  }
  Json out{{"findings", std::move(findings)},
           {"overLimit", std::move(overLimit)},
           {"errors", std::move(errors)},
           {"notes", report.notes},
           {"summary", SummaryJson(report)}};
  // Names and messages come from the cluster: bytes that are not UTF-8 are replaced, not thrown.
  return out.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace gpugate::cli
