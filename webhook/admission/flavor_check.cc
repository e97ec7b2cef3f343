#include "admission/flavor_check.h"

#include <algorithm>

#include "quota/pod_charge.h"

namespace gpugate::admission {
namespace {

// "a100 (nvidia.com/gpu.product=NVIDIA-A100-SXM4-80GB), t4 (...)": every configured flavor.
std::string Choices(const quota::QuotaConfig& config) {
  std::string out;
  for (const policy::Flavor& f : config.flavors) {
    if (!out.empty()) out += ", ";
    out += f.name + " (";
    for (size_t i = 0; i < f.nodeLabels.size(); ++i) {
      out += (i ? "," : "") + f.nodeLabels[i].first + "=" + f.nodeLabels[i].second;
    }
    out += ")";
  }
  return out;
}

const std::string* DefaultFlavor(const quota::QuotaConfig& config, std::string_view ns) {
  auto it = config.defaultFlavors.find(ns);
  return it == config.defaultFlavors.end() ? nullptr : &it->second;
}

}  // namespace

std::vector<std::string> LimitedFlavors(const quota::Accounting& ledger, std::string_view ns) {
  std::vector<std::string> out;
  if (ledger.config().flavors.empty()) return out;
  for (const quota::NamespaceUsage& usage : ledger.Usage(ns)) {
    if (usage.ns != ns) continue;
    for (const auto& [name, r] : usage.resources) {
      auto flavored = policy::SplitFlavored(name);
      if (!flavored || !r.hard) continue;
      std::string flavor(flavored->second);
      if (std::find(out.begin(), out.end(), flavor) == out.end()) out.push_back(flavor);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::optional<review::RuleFinding> UnpinnedFinding(const policy::PodSpecView& spec,
                                                   std::string_view ns, DefaultPin pin,
                                                   policy::Mode mode,
                                                   const policy::Settings& settings,
                                                   const quota::Accounting& ledger) {
  const quota::QuotaConfig& config = ledger.config();
  if (config.flavors.empty()) return std::nullopt;
  if (policy::PodFlavors(spec, config.flavors).pinned) return std::nullopt;
  if (quota::PodCharge(spec, settings, config).empty()) return std::nullopt;  // not a GPU pod
  const std::string* fallback = DefaultFlavor(config, ns);
  if (fallback && pin == DefaultPin::kAhead) return std::nullopt;  // /mutate will pin it
  const std::vector<std::string> limited = LimitedFlavors(ledger, ns);
  if (limited.empty()) return std::nullopt;
  std::string message =
      spec.path + ": namespace " + std::string(ns) +
      " sets GPU quota per model, and this pod does not choose one: pin it with " + spec.path +
      ".nodeSelector, a required node affinity or the annotation " +
      std::string(policy::kUseGpuTypeAnnotation) + " to one of " + Choices(config);
  if (fallback) {
    message += ". gpugate's mutating webhook pins such pods in " + std::string(ns) + " to " +
               *fallback +
               ", but this one was not pinned: is the gpugate mutating webhook configured, and "
               "mutation on, for this namespace?";
  }
  std::string names;
  for (const policy::Flavor& f : config.flavors) names += (names.empty() ? "" : ", ") + f.name;
  return review::RuleFinding{.rule = std::string(policy::kQuotaRule),
                             .message = std::move(message),
                             .mode = mode,
                             .subject = spec.path + ".nodeSelector",
                             .fix = "namespace " + std::string(ns) +
                                    " sets GPU quota per model; pin this pod to one of " + names};
}

std::vector<std::pair<std::string, std::string>> DefaultFlavorPin(
    const policy::PodSpecView& spec, std::string_view ns, const quota::QuotaConfig& config) {
  const std::string* name = DefaultFlavor(config, ns);
  if (!name || policy::PodFlavors(spec, config.flavors).pinned) return {};
  for (const policy::Flavor& f : config.flavors) {
    if (f.name == *name) return f.nodeLabels;
  }
  return {};
}

}  // namespace gpugate::admission
