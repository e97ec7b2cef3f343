#include "quota/pod_charge.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string_view>
#include <vector>

#include "policy/gpu_demand.h"
#include "policy/resource_values.h"

namespace gpugate::quota {
namespace {

using policy::ContainerKind;
using policy::ContainerView;

constexpr int64_t kSaturated = std::numeric_limits<int64_t>::max();

// Sums saturate rather than wrap: an absurd quantity must never turn into a small charge that
// fits under a limit.
int64_t AddSaturating(int64_t a, int64_t b) {
  int64_t sum;
  return __builtin_add_overflow(a, b, &sum) ? kSaturated : sum;
}

int64_t MulSaturating(int64_t a, int64_t b) {
  int64_t product;
  return __builtin_mul_overflow(a, b, &product) ? kSaturated : product;
}

void AddTo(Amounts& total, const Amounts& more) {
  for (const auto& [name, milli] : more) total[name] = AddSaturating(total[name], milli);
}

void MaxInto(Amounts& peak, const Amounts& candidate) {
  for (const auto& [name, milli] : candidate) peak[name] = std::max(peak[name], milli);
}

// The container's request of one resource in milli-units, or 0 when it is not a valid whole
// quantity (whole-units refuses the pod first). A value past int64 milli-units saturates.
int64_t WholeMilli(const policy::QuantityText& text) {
  std::optional<Quantity> q = policy::ValidWholeQuantity(text);
  if (!q) return 0;
  return q->ToMilli().value_or(kSaturated);
}

// Whether list[i] is the last entry of its name (the lists are sorted by name): the one that
// counts, should a hand-built view repeat a name.
bool LastOfItsName(const std::vector<policy::ResourceEntry>& list, size_t i) {
  return i + 1 == list.size() || list[i + 1].name != list[i].name;
}

// Calls f(name, milli) with the container's request of every managed resource, each name once:
// the request, or the limit when the request is absent (Kubernetes defaults an extended
// resource's request to its limit).
template <typename F>
void ForEachRequest(const ContainerView& c, const policy::Settings& settings, F&& f) {
  for (size_t i = 0; i < c.requests.size(); ++i) {
    const policy::ResourceEntry& e = c.requests[i];
    if (LastOfItsName(c.requests, i) && settings.Find(e.name) != nullptr) {
      f(e.name, WholeMilli(e.value));
    }
  }
  for (size_t i = 0; i < c.limits.size(); ++i) {
    const policy::ResourceEntry& e = c.limits[i];
    if (LastOfItsName(c.limits, i) && c.Request(e.name) == nullptr &&
        settings.Find(e.name) != nullptr) {
      f(e.name, WholeMilli(e.value));
    }
  }
}

Amounts ContainerRequests(const ContainerView& c, const policy::Settings& settings) {
  Amounts out;
  ForEachRequest(c, settings, [&](std::string_view name, int64_t milli) {
    out.emplace(std::string(name), milli);
  });
  return out;
}

// total[name] += milli, saturating, without building the name unless it is new.
void AddOne(Amounts& total, std::string_view name, int64_t milli) {
  auto it = total.find(name);
  if (it == total.end()) {
    total.emplace(std::string(name), milli);
  } else {
    it->second = AddSaturating(it->second, milli);
  }
}

// AddTo(total, ContainerRequests(c, settings)) without the container's own map.
void AddRequestsTo(Amounts& total, const ContainerView& c, const policy::Settings& settings) {
  ForEachRequest(c, settings,
                 [&](std::string_view name, int64_t milli) { AddOne(total, name, milli); });
}

// Calls f(name, milli) for every managed resource in the pod's overhead with a positive whole
// quantity, each name once (the last of a repeated one).
template <typename F>
void ForEachOverhead(const policy::PodSpecView& pod, const policy::Settings& settings, F&& f) {
  for (size_t i = 0; i < pod.overhead.size(); ++i) {
    const policy::ResourceEntry& e = pod.overhead[i];
    if (!LastOfItsName(pod.overhead, i) || settings.Find(e.name) == nullptr) continue;
    if (const int64_t milli = WholeMilli(e.value); milli != 0) f(e.name, milli);
  }
}

// Kubernetes' PodRequests (k8s.io/component-helpers/resource) for the managed resources.
Amounts EffectiveRequests(const policy::PodSpecView& pod, const policy::Settings& settings) {
  Amounts running;   // what the pod holds once started: regular containers and sidecars
  Amounts sidecars;  // sidecars declared so far; they keep running while later inits run
  Amounts initPeak;  // the most any point of the init sequence needs
  for (const ContainerView& c : pod.containers) {  // init containers first, in order
    if (c.kind == ContainerKind::kEphemeral) continue;
    if (c.kind == ContainerKind::kRegular) {
      AddRequestsTo(running, c, settings);
      continue;
    }
    Amounts requests = ContainerRequests(c, settings);
    if (c.restartPolicy == "Always") {
      AddTo(running, requests);
      AddTo(sidecars, requests);
      MaxInto(initPeak, sidecars);
    } else {
      AddTo(requests, sidecars);
      MaxInto(initPeak, requests);
    }
  }
  MaxInto(running, initPeak);
  // The pod's overhead (its RuntimeClass's) comes on top, as PodRequests adds it.
  ForEachOverhead(pod, settings,
                  [&](std::string_view name, int64_t milli) { AddOne(running, name, milli); });
  return running;
}

}  // namespace

bool MayCharge(const policy::PodSpecView& pod, const policy::Settings& settings) {
  if (policy::IsGpuPod(pod, settings)) return true;
  bool any = false;
  ForEachOverhead(pod, settings, [&](std::string_view, int64_t) { any = true; });
  return any;
}

Amounts PodCharge(const policy::PodSpecView& pod, const policy::Settings& settings,
                  const QuotaConfig& config) {
  Amounts charge = EffectiveRequests(pod, settings);
  Amounts figures;
  for (const auto& [figure, weights] : config.weights) {
    int64_t total = 0;
    for (const auto& [resource, weightMilli] : weights) {
      auto it = charge.find(resource);
      if (it == charge.end()) continue;
      // Effective requests are whole units, so weight * units is exact in milli-units.
      total = AddSaturating(total, MulSaturating(weightMilli, it->second / kMilli));
    }
    figures[figure] = total;
  }
  // Figure names never collide with managed resources (the config refuses that).
  charge.merge(figures);
  std::erase_if(charge, [](const auto& entry) { return entry.second == 0; });
  // A pinned pod counts again for every flavor it may run on, so that whichever node it lands
  // on, that flavor's use includes it.
  if (charge.empty() || config.flavors.empty()) return charge;
  policy::FlavorPin pin = policy::PodFlavors(pod, config.flavors);
  if (!pin.pinned) return charge;
  Amounts flavored;
  for (const std::string& flavor : pin.flavors) {
    for (const auto& [name, milli] : charge) flavored[policy::FlavoredName(name, flavor)] = milli;
  }
  charge.merge(flavored);
  return charge;
}

}  // namespace gpugate::quota
