#include "cli/check_report.h"

#include <nlohmann/json.hpp>

#include "cli/exit_status.h"

namespace gpugate::cli {
namespace {

using Json = nlohmann::ordered_json;  // fields in the order a reader expects them

// Offline there is no ledger to charge: said in every summary, so a clean run is not read as
// "within quota".
constexpr std::string_view kQuotaNote = "quota not checked (it needs the cluster's state)";

std::string Where(const manifest::Location& at) {
  return at.line > 0 ? at.file + ":" + std::to_string(at.line) : at.file;
}

std::string Count(size_t n, std::string_view one, std::string_view many) {
  return std::to_string(n) + " " + std::string(n == 1 ? one : many);
}

std::string SummaryLine(const CheckReport& report) {
  const CheckCounts& c = report.counts;
  std::string line = "checked " + Count(c.objects, "object", "objects") + " in " +
                     Count(c.files, "file", "files") + ": " + std::to_string(c.denied) +
                     " denied, " + std::to_string(c.warned) + " warned, " +
                     std::to_string(c.audited) + " audited, " + std::to_string(c.allowed) +
                     " allowed, " + std::to_string(c.exempt) + " exempt, " +
                     std::to_string(c.withoutPodSpec) + " without a pod spec; ";
  if (!report.errors.empty()) {
    line += Count(report.errors.size(), "file", "files") + " unreadable; ";
  }
  return line + std::string(kQuotaNote);
}

Json FindingJson(const Finding& f) {
  return Json{{"file", f.at.file},    {"line", f.at.line},
              {"kind", f.kind},       {"namespace", f.ns},
              {"name", f.name},       {"reason", f.rule},
              {"message", f.message}, {"severity", policy::ModeName(f.mode)}};
}

Json SummaryJson(const CheckReport& report) {
  const CheckCounts& c = report.counts;
  return Json{{"files", c.files},
              {"objects", c.objects},
              {"denied", c.denied},
              {"warned", c.warned},
              {"audited", c.audited},
              {"allowed", c.allowed},
              {"exempt", c.exempt},
              {"withoutPodSpec", c.withoutPodSpec},
              {"unreadable", report.errors.size()},
              {"quotaChecked", false},
              {"text", SummaryLine(report)}};
}

}  // namespace

int ExitStatus(const CheckReport& report) {
  RunOutcome run{.unread = report.errors.empty() ? Unread::kNothing : Unread::kInput};
  for (const Finding& f : report.findings) run.wouldDeny = run.wouldDeny || FailsRun(f.mode);
  return ExitStatusOf(run);
}

void WriteText(const CheckReport& report, std::ostream& out, std::ostream& err) {
  for (const Finding& f : report.findings) {
    out << Where(f.at) << ": " << f.kind << "/" << f.name << ": ";
    if (f.mode == policy::Mode::kWarn) out << "warning: ";
    if (f.mode == policy::Mode::kAudit) out << "audit: ";
    out << f.message << "\n";
  }
  out.flush();  // errors after the findings, also where both streams share one pipe
  for (const manifest::ManifestError& e : report.errors) {
    err << Where(e.at) << ": error: " << e.message << "\n";
  }
  err.flush();
  out << SummaryLine(report) << "\n";
}

std::string RenderJson(const CheckReport& report) {
  Json findings = Json::array();
  for (const Finding& f : report.findings) findings.push_back(FindingJson(f));
  Json errors = Json::array();
  for (const manifest::ManifestError& e : report.errors) {
    errors.push_back({{"file", e.at.file}, {"line", e.at.line}, {"message", e.message}});
  }
  Json out{{"findings", std::move(findings)},
           {"errors", std::move(errors)},
           {"summary", SummaryJson(report)}};
  // A name in a manifest may hold bytes that are not UTF-8: replaced, rather than throwing.
  return out.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace gpugate::cli
