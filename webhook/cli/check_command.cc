// `gpugate check`: the validation rules offline, over manifests, for CI pipelines. Each object
// is judged by the webhook's own judgement (admission::Judge), asked about its creation, in the
// webhook's words and in each rule's mode for the manifest's namespace, without a quota view:
// quota is not checked (docs/rules.md, "Checking manifests before they reach the cluster").
#include <iostream>
#include <string_view>

#include "admission/judge.h"
#include "cli/check_report.h"
#include "cli/cli.h"
#include "cli/flags.h"
#include "cli/object_fields.h"
#include "common/strings.h"
#include "config/config.h"
#include "manifest/manifest_files.h"
#include "review/pod_spec_finder.h"

namespace gpugate::cli {
namespace {

using nlohmann::json;

constexpr FlagSpec kCheckFlags[] = {
    {.name = "filename",
     .shortName = 'f',
     .valueName = "PATH",
     .help = "a manifest file (YAML or JSON), a directory (its *.yaml, *.yml\n"
             "and *.json files, recursively) or - for stdin; repeatable"},
    {.name = "config",
     .valueName = "FILE",
     .help = "the configuration file gpugate serve uses (its policy keys:\n"
             "resources, exemptNamespaces, security, ...); without it, the\n"
             "defaults"},
    {.name = "output",
     .shortName = 'o',
     .valueName = "FORMAT",
     .help = "text (default: FILE:LINE: KIND/NAME: message) or json"},
    kHelpFlag,
};

constexpr std::string_view kCheckForms[] = {
    "-f FILE|DIR|- [-f ...] [--config FILE] [-o|--output text|json]"};

struct CheckOptions {
  std::vector<std::string> paths;
  policy::Settings settings;
  bool json = false;
};

// Flags -> options; every error here is a usage error (exit status 2).
Result<CheckOptions> CheckOptionsFrom(const Flags& flags) {
  if (!flags.positional().empty()) {
    return Fail("unexpected argument " + JsonQuote(flags.positional()[0]) +
                "; name manifests with -f");
  }
  CheckOptions options;
  options.paths = flags.GetAll("filename");
  if (options.paths.empty()) return Fail("needs -f FILE, -f DIR or -f - (stdin)");
  const std::string output = flags.Get("output").value_or("text");
  if (output != "text" && output != "json") {
    return Fail("-o must be text or json, got " + JsonQuote(output));
  }
  options.json = output == "json";
  if (auto path = flags.Get("config")) {
    auto loaded = config::LoadConfigFile(*path);
    if (!loaded) return std::unexpected(loaded.error());
    options.settings = std::move(loaded->policy);
  }
  return options;
}

// Counts what the webhook would answer for one judged object, and lists its findings: the
// denial, each warning unabridged (no API limit applies here) and each audit annotation.
void Record(const Finding& f, const admission::RuleVerdict& verdict, bool hasPodSpecs,
            CheckReport& report) {
  CheckCounts& counts = report.counts;
  const review::Notes notes = review::NotesFor(verdict.findings);
  if (verdict.Denies()) {
    ++counts.denied;
  } else if (!notes.warnings.empty()) {  // every warn-mode finding sends at least a summary
    ++counts.warned;
  } else if (!notes.auditAnnotations.empty()) {
    ++counts.audited;
  } else if (!hasPodSpecs) {
    ++counts.withoutPodSpec;
  } else {
    ++counts.allowed;
  }
  auto add = [&](policy::Mode mode, std::string rule, std::string message) {
    Finding finding = f;
    finding.mode = mode;
    finding.rule = std::move(rule);
    finding.message = std::move(message);
    report.findings.push_back(std::move(finding));
  };
  if (verdict.Denies()) add(policy::Mode::kDeny, verdict.DenialReason(), verdict.DenialMessage());
  for (const review::RuleFinding& w : verdict.findings) {
    if (w.mode == policy::Mode::kWarn) add(policy::Mode::kWarn, w.rule, w.message);
  }
  for (const review::AuditAnnotation& a : notes.auditAnnotations) {
    // The whole text of long warnings: listed above, one finding each.
    if (a.key == review::kWarningsAnnotationKey) continue;
    add(policy::Mode::kAudit, a.key, a.value);
  }
}

// Judges one object as the webhook would its creation, quota aside, and counts it.
void CheckObject(manifest::ManifestObject&& manifest, const admission::Judge& judge,
                 CheckReport& report) {
  ++report.counts.objects;
  Finding f{.at = std::move(manifest.at),
            .kind = StringAt(manifest.object, {"kind"}),
            .ns = StringAt(manifest.object, {"metadata", "namespace"}),
            .name = ObjectName(manifest.object)};
  // The API server clears a new object's deletionTimestamp and status: a creation is live.
  if (judge.Skips(f.ns, admission::Lifecycle::kLive)) {
    ++report.counts.exempt;
    return;
  }
  const bool isPod = f.kind == "Pod" && StringAt(manifest.object, {"apiVersion"}) == "v1";
  const policy::ObjectView view = review::FindPodSpecs(std::move(manifest.object));
  const admission::Verdict verdict =
      judge.Decide({.object = view, .ns = f.ns, .isPod = isPod}, {}, admission::Asked::kCreation);
  Record(f, verdict.rules, !view.podSpecs.empty(), report);
}

// Reads and checks every file `path` names; a file that cannot be read is an error in the report.
void CheckPath(const std::string& path, const admission::Judge& judge, CheckReport& report) {
  auto files = manifest::ManifestPaths(path);
  if (!files) {
    ++report.counts.files;
    report.errors.push_back(std::move(files.error()));
    return;
  }
  for (const std::string& file : *files) {
    ++report.counts.files;
    auto text = manifest::ReadManifestText(file);
    if (!text) {
      report.errors.push_back(std::move(text.error()));
      continue;
    }
    auto objects = manifest::ParseManifests(*text, file);
    if (!objects) {
      report.errors.push_back(std::move(objects.error()));
      continue;
    }
    for (manifest::ManifestObject& object : *objects) {
      CheckObject(std::move(object), judge, report);
    }
  }
}

}  // namespace

const CommandHelp kCheckHelp = {
    .name = "check",
    .forms = kCheckForms,
    .summary =
        "Check manifests offline with the rules /validate applies, each object as the webhook\n"
        "would answer its creation, in the same words: YAML (several documents), JSON, Lists,\n"
        "the output of helm template and kubectl kustomize. Quota is not checked. Rules in\n"
        "warn or audit mode (the config's modes) are reported without failing the check.\n"
        "Exit status: 0 nothing would be denied, 1 something would, 2 unreadable input.",
    .flags = kCheckFlags,
};

int RunCheck(const std::vector<std::string>& args) {
  auto flags = Flags::Parse(args, kCheckFlags);
  if (flags && flags->Has("help")) {
    PrintCommandHelp(std::cout, kCheckHelp, "gpugate check");
    return 0;
  }
  auto options = flags ? CheckOptionsFrom(*flags) : std::unexpected(flags.error());
  if (!options) {
    std::cerr << "gpugate check: " << options.error().message << "\n";
    return 2;
  }
  CheckReport report;
  const admission::Judge judge(options->settings, /*quota=*/nullptr);  // offline: no quota view
  for (const std::string& path : options->paths) CheckPath(path, judge, report);
  if (options->json) {
    std::cout << RenderJson(report);
  } else {
    WriteText(report, std::cout, std::cerr);
  }
  return ExitStatus(report);
}

}  // namespace gpugate::cli
