#include "cluster/namespace_watch.h"

#include <mutex>

namespace gpugate::cluster {
namespace {

using nlohmann::json;

// metadata.<field>[.<key>], when it is there as a string.
std::optional<std::string> MetadataString(const json& object, std::string_view field,
                                          std::string_view key = {}) {
  if (!object.is_object()) return std::nullopt;
  auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object()) return std::nullopt;
  auto value = meta->find(field);
  if (value == meta->end()) return std::nullopt;
  if (!key.empty()) {
    if (!value->is_object()) return std::nullopt;
    auto inner = value->find(key);
    if (inner == value->end()) return std::nullopt;
    value = inner;
  }
  if (!value->is_string()) return std::nullopt;
  return value->get<std::string>();
}

}  // namespace

NamespaceWatch::NamespaceWatch(ApiClient& client, std::function<void(const std::string&)> onError)
    : onError_(std::move(onError)),
      informer_(client, std::string(kNamespaceCollection),
                InformerHandlers{.onList =
                                     [this] {
                                       // Namespaces are few and small: a list is kept whole.
                                       return CollectList(
                                           [this](std::vector<json> items) { OnList(items); });
                                     },
                                 .onEvent = [this](const WatchEvent& event) { OnEvent(event); },
                                 .onError = onError_}) {}

NamespaceWatch::~NamespaceWatch() { Stop(); }

void NamespaceWatch::Start() { informer_.Start(); }

void NamespaceWatch::Stop() { informer_.Stop(); }

std::optional<policy::ParsedLabels> GpugateLabels(const json& ns) {
  std::optional<std::string> mode = MetadataString(ns, "labels", policy::kModeLabel);
  std::optional<std::string> mutate = MetadataString(ns, "labels", policy::kMutateLabel);
  if (!mode && !mutate) return std::nullopt;
  return policy::ParseNamespaceLabels(mode, mutate);
}

std::optional<NamespaceWatch::Entry> NamespaceWatch::EntryOf(const json& object) {
  std::optional<policy::ParsedLabels> parsed = GpugateLabels(object);
  if (!parsed) return std::nullopt;
  return Entry{parsed->labels, std::move(parsed->problem)};
}

void NamespaceWatch::ReportNew(const std::string& ns, const Entry& entry,
                               const Entry* before) const {
  if (!onError_ || entry.problem.empty()) return;
  if (before && before->problem == entry.problem) return;
  onError_("namespace " + ns + ": " + entry.problem);
}

void NamespaceWatch::OnList(const std::vector<json>& items) {
  std::map<std::string, Entry, std::less<>> entries;
  for (const json& item : items) {
    std::optional<std::string> ns = MetadataString(item, "name");
    std::optional<Entry> entry = EntryOf(item);
    if (ns && entry) entries[*ns] = std::move(*entry);
  }
  std::map<std::string, Entry, std::less<>> before;
  {
    std::unique_lock lock(mu_);
    before.swap(entries_);
    entries_ = entries;
  }
  for (const auto& [ns, entry] : entries) {
    auto old = before.find(ns);
    ReportNew(ns, entry, old == before.end() ? nullptr : &old->second);
  }
}

void NamespaceWatch::OnEvent(const WatchEvent& event) {
  std::optional<std::string> ns = MetadataString(event.object, "name");
  if (!ns) return;
  std::optional<Entry> entry =
      event.type == WatchEvent::Type::kDeleted ? std::nullopt : EntryOf(event.object);
  std::optional<Entry> before;
  {
    std::unique_lock lock(mu_);
    auto it = entries_.find(*ns);
    if (it != entries_.end()) {
      before = std::move(it->second);
      entries_.erase(it);
    }
    if (entry) entries_[*ns] = *entry;
  }
  if (entry) ReportNew(*ns, *entry, before ? &*before : nullptr);
}

policy::NamespaceLabels NamespaceWatch::Labels(std::string_view ns) const {
  std::shared_lock lock(mu_);
  auto it = entries_.find(ns);
  return it == entries_.end() ? policy::NamespaceLabels{} : it->second.labels;
}

bool NamespaceWatch::Ready() const { return informer_.Synced(); }

}  // namespace gpugate::cluster
