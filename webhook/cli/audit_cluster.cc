#include "cli/audit_cluster.h"

#include <algorithm>
#include <functional>
#include <map>
#include <memory>

#include "cli/audit_scan.h"
#include "cli/object_fields.h"
#include "cluster/cluster_ledger.h"
#include "cluster/gpu_quota_record.h"
#include "cluster/limits.h"
#include "cluster/list_pager.h"
#include "cluster/namespace_watch.h"
#include "quota/limit_check.h"
#include "quota/usage_snapshot.h"

namespace gpugate::cli {
namespace {

using cluster::ListFailure;
using cluster::ListSink;
using nlohmann::json;

using SinkFactory = std::function<std::unique_ptr<ListSink>()>;

// A sink that keeps what one list attempt found in a `T` and hands it to `done` at Commit only,
// so an attempt abandoned when its continue token expired leaves nothing behind.
template <typename T>
SinkFactory Pending(std::function<void(const json& item, T& found)> add,
                    std::function<void(T& found)> done) {
  return [add = std::move(add), done = std::move(done)] {
    auto found = std::make_shared<T>();
    return cluster::MakeListSink([found, add](json item) { add(item, *found); },
                                 [found, done] { done(*found); });
  };
}

// What one list of a kind found.
struct KindScan {
  std::vector<AuditFinding> findings;
  size_t scanned = 0, exempt = 0, finished = 0, deleting = 0, withFindings = 0;

  void Add(const json& object, const AuditKind& kind, const AuditContext& context) {
    ++scanned;
    size_t before = findings.size();
    const std::optional<admission::Unjudged> unjudged =
        AuditObject(object, kind, context, findings);
    if (!unjudged) {
      withFindings += findings.size() > before;
      return;
    }
    switch (*unjudged) {
      case admission::Unjudged::kExempt:
        ++exempt;
        break;
      case admission::Unjudged::kFinished:
        ++finished;
        break;
      case admission::Unjudged::kDeleting:
        ++deleting;
        break;
    }
  }
};

// The namespaces' gpugate labels as the namespace watch reads them (only those that carry one),
// and what could not be read.
struct FoundLabels {
  std::map<std::string, policy::NamespaceLabels, std::less<>> labels;
  std::vector<std::string> problems;
};

void AddLabels(const json& ns, FoundLabels& found) {
  std::optional<policy::ParsedLabels> parsed = cluster::GpugateLabels(ns);
  if (!parsed) return;
  std::string name = StringAt(ns, {"metadata", "name"});
  if (!parsed->problem.empty()) {
    found.problems.push_back("namespace " + name + ": " + parsed->problem);
  }
  found.labels[name] = parsed->labels;
}

constexpr std::string_view kLabelsUnknown =
    "the namespaces' gpugate.io/mode labels are not known: modes come from the config alone";

class Auditor {
 public:
  Auditor(cluster::KubeClient& client, const AuditOptions& options)
      : client_(client), options_(options), quota_(options.quota) {}

  Result<AuditReport> Run() {
    if (auto st = ReadNamespaces(); !st) return std::unexpected(st.error());
    ReadResourceQuotas();
    ReadGpuQuotas();
    for (const AuditKind& kind : AuditKinds(options_.audit)) ReadKind(kind);
    FindOverLimits();
    // By namespace, then in listing order: kinds in AuditKinds' order, each as the API lists it.
    std::stable_sort(report_.findings.begin(), report_.findings.end(),
                     [](const AuditFinding& a, const AuditFinding& b) { return a.ns < b.ns; });
    return std::move(report_);
  }

 private:
  // Lists `path` into sinks from `newSink`. A list that fails leaves an error in the report, or,
  // for a collection the cluster does not serve (404), the note `notServed`; the continue tokens
  // that expired on the way are notes. Returns the failure, if any.
  std::optional<ListFailure> List(const std::string& what, const std::string& path,
                                  const SinkFactory& newSink, const std::string& notServed) {
    std::vector<std::string> setbacks;
    auto listed = cluster::ListPaged(
        client_, path, newSink, {.pageSize = options_.pageSize},
        {.onError = [&](const std::string& message) { setbacks.push_back(message); }});
    if (!listed && !setbacks.empty()) setbacks.pop_back();  // the failure itself, below
    for (const std::string& s : setbacks) report_.notes.push_back(what + ": " + s);
    if (listed) return std::nullopt;
    if (listed.error().status == 404) {
      report_.notes.push_back(what + ": " + notServed);
    } else {
      report_.errors.push_back({what, listed.error().message});
    }
    return listed.error();
  }

  // The API cannot be used at all: no answer, or the credentials refused.
  static bool Unusable(const ListFailure& failure) {
    return failure.status == 0 || failure.status == 401;
  }

  policy::NamespaceLabels Labels(std::string_view ns) const {
    auto it = labels_.find(ns);
    return it == labels_.end() ? policy::NamespaceLabels{} : it->second;
  }

  // The namespaces' gpugate labels, those that carry one only.
  Status ReadNamespaces();
  // With -n: the one namespace, read with get (an operator may not list them all).
  Status ReadNamespace(const std::string& name);

  void Keep(FoundLabels found);
  void ReadResourceQuotas();
  void ReadGpuQuotas();
  void ReadKind(const AuditKind& kind);
  void FindOverLimits();

  cluster::KubeClient& client_;
  const AuditOptions& options_;
  quota::UsageSnapshot quota_;
  std::map<std::string, policy::NamespaceLabels, std::less<>> labels_;
  AuditReport report_;
};

Status Auditor::ReadNamespaces() {
  if (!options_.ns.empty()) return ReadNamespace(options_.ns);
  auto failure = List(
      "namespaces", std::string(cluster::kNamespaceCollection),
      Pending<FoundLabels>(AddLabels, [this](FoundLabels& found) { Keep(std::move(found)); }), "");
  if (failure && Unusable(*failure)) return Fail("namespaces: " + failure->message);
  if (failure) report_.notes.emplace_back(kLabelsUnknown);
  return {};
}

void Auditor::Keep(FoundLabels found) {
  labels_ = std::move(found.labels);
  for (std::string& p : found.problems) report_.notes.push_back(std::move(p));
}

Status Auditor::ReadNamespace(const std::string& name) {
  const std::string path = std::string(cluster::kNamespaceCollection) + "/" + name;
  auto res = client_.Get(path);
  if (!res) return Fail("namespace " + name + ": " + res.error().message);
  if (res->status == 404) return Fail("namespace " + name + " not found");
  const std::string error =
      "HTTP " + std::to_string(res->status) + ": " + cluster::StatusMessage(res->body);
  if (res->status == 401) return Fail("namespace " + name + ": " + error);
  if (res->status != 200) {
    report_.errors.push_back({"namespaces", "get " + name + ": " + error});
    report_.notes.emplace_back(kLabelsUnknown);
    return {};
  }
  FoundLabels found;
  AddLabels(json::parse(res->body, nullptr, /*allow_exceptions=*/false), found);
  Keep(std::move(found));
  return {};
}

void Auditor::ReadResourceQuotas() {
  using Found = std::vector<std::pair<std::string, quota::Amounts>>;
  const policy::Settings& settings = options_.settings;
  List("resourcequotas",
       "/api/v1" + (options_.ns.empty() ? "" : "/namespaces/" + options_.ns) + "/resourcequotas",
       Pending<Found>(
           [&](const json& rq, Found& found) {
             std::string ns = StringAt(rq, {"metadata", "namespace"});
             if (settings.IsExempt(ns)) return;
             quota::Amounts limits =
                 cluster::ResourceQuotaLimits(rq, settings, options_.quota.flavors);
             if (!limits.empty()) found.emplace_back(std::move(ns), std::move(limits));
           },
           [this](Found& found) {
             for (const auto& [ns, limits] : found) quota_.AddLimits(ns, limits);
           }),
       "not served by this cluster");
}

void Auditor::ReadGpuQuotas() {
  struct Found {
    std::vector<std::pair<std::string, quota::Amounts>> used;
    std::vector<std::string> problems;
  };
  const std::string path = options_.ns.empty() ? std::string(cluster::kGpuQuotaCollection)
                                               : cluster::GpuQuotaCollectionPath(options_.ns);
  List("gpuquotas.gpugate.io", path,
       Pending<Found>(
           [this](const json& item, Found& found) {
             cluster::GpuQuotaRecord record = cluster::DecodeGpuQuota(item);
             if (options_.settings.IsExempt(record.ns)) return;
             if (!record.problem.empty()) {
               found.problems.push_back("GPUQuota " + record.ns + "/" + ObjectName(item) + ": " +
                                        record.problem + "; its use is not known");
               return;
             }
             found.used.emplace_back(record.ns, record.Used());
           },
           [this](Found& found) {
             for (auto& [ns, used] : found.used) quota_.SetUsed(ns, std::move(used));
             for (std::string& p : found.problems) report_.notes.push_back(std::move(p));
           }),
       "not served by this cluster: gpugate does not run in cluster mode there, so the quota "
       "use it records was not read");
}

void Auditor::ReadKind(const AuditKind& kind) {
  const AuditContext context{options_.settings, labels_, quota_};
  List(
      kind.Name(), kind.CollectionPath(options_.ns),
      Pending<KindScan>(
          [&kind, context](const json& object, KindScan& scan) { scan.Add(object, kind, context); },
          [this, &kind](KindScan& scan) {
            AuditCounts& c = report_.counts;
            c.scanned.emplace_back(kind.kind.empty() ? kind.Name() : kind.kind, scan.scanned);
            c.exempt += scan.exempt;
            c.finished += scan.finished;
            c.deleting += scan.deleting;
            c.withFindings += scan.withFindings;
            for (AuditFinding& f : scan.findings) report_.findings.push_back(std::move(f));
          }),
      "not served by this cluster at " + kind.GroupVersion() +
          " (no such resource, or not at this version)");
}

void Auditor::FindOverLimits() {
  for (const std::string& ns : quota_.Namespaces()) {
    if (options_.settings.IsExempt(ns)) continue;
    if (!options_.ns.empty() && ns != options_.ns) continue;
    quota::Excess excess = quota::OverLimits(quota_.Limits(ns), quota_.Used(ns));
    if (excess.empty()) continue;
    std::string message = quota::OverLimitMessage(ns, excess);
    report_.overLimit.push_back(
        {.ns = ns,
         .mode = policy::ModeFor(options_.settings.modes, ns, policy::kQuotaRule, Labels(ns)),
         .excess = std::move(excess),
         .message = std::move(message)});
  }
}

}  // namespace

Result<AuditReport> AuditCluster(cluster::KubeClient& client, const AuditOptions& options) {
  return Auditor(client, options).Run();
}

}  // namespace gpugate::cli
