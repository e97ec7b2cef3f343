// The namespaces' gpugate labels in cluster mode (gpugate.io/mode, gpugate.io/mutate; see
// policy/modes.h), kept current by a list-then-watch of every Namespace: the handler's
// policy::NamespaceLabelSource. A change of label applies to the reviews decided after the
// watch delivers it, typically well under a second after `kubectl label`.
//
// Thread-safety: Labels and Ready may be called from any thread; the informer's thread writes.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>

#include "cluster/api_client.h"
#include "cluster/informer.h"
#include "cluster/kube_object.h"
#include "policy/modes.h"

namespace gpugate::cluster {

// The gpugate labels of a Namespace object as gpugate reads them (policy::ParseNamespaceLabels);
// nullopt when it carries none.
std::optional<policy::ParsedLabels> GpugateLabels(const nlohmann::json& ns);

class NamespaceWatch : public policy::NamespaceLabelSource {
 public:
  // `client` must outlive the watch; it may be shared (Stop ends only this watch's stream).
  // `onError` (may be null) hears what the informer recovers from
  // and label values gpugate cannot read (policy::ParseNamespaceLabels), on the informer's
  // thread, once per change of value.
  explicit NamespaceWatch(ApiClient& client,
                          std::function<void(const std::string&)> onError = nullptr);
  ~NamespaceWatch() override;  // stops

  void Start();
  void Stop();

  // The labels of `ns` as last seen; none for a namespace without gpugate labels, an unknown
  // one, or before the first list.
  policy::NamespaceLabels Labels(std::string_view ns) const override;
  bool Ready() const override;  // the first list has arrived

 private:
  struct Entry {
    policy::NamespaceLabels labels;
    std::string problem;  // what could not be read, "" when nothing
  };
  // The entry an object's labels make; nullopt when it has no gpugate label.
  static std::optional<Entry> EntryOf(const nlohmann::json& object);
  // The informer's handlers: a list replaces every entry, an event changes one.
  void OnList(const std::vector<nlohmann::json>& items);
  void OnEvent(const WatchEvent& event);
  // Reports `entry`'s problem unless `before` had the same one.
  void ReportNew(const std::string& ns, const Entry& entry, const Entry* before) const;

  std::function<void(const std::string&)> onError_;
  mutable std::shared_mutex mu_;
  // Only namespaces that carry a gpugate label; guarded by mu_.
  std::map<std::string, Entry, std::less<>> entries_;
  Informer informer_;
};

}  // namespace gpugate::cluster
