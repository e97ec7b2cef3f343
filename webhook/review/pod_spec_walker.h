// The pod-spec walk, written once over a JSON view (json_view.h) and instantiated for both
// parsers in pod_spec_finder.cc: simdjson's DOM on the request path, nlohmann-json for pods from
// the cluster watch and DecodeReview's fallback. One template rather than two walks, so the two
// can never disagree on what a pod spec is, where it sits, or how a shape error reads; the views
// hide the only differences (key order, repeated keys, number text). Internal to review/.
#pragma once

#include <algorithm>
#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/vector_pool.h"
#include "policy/pod_view.h"
#include "review/json_view.h"
#include "review/pod_spec_finder.h"

namespace gpugate::review {

// Walks `object` iteratively (deep nesting cannot overflow the stack) and returns the pod specs in
// a deterministic order (object members by key, array items by index), with shape errors for
// fields of the wrong JSON type. Pointers are relative to `object`. The views' strings point into
// the document and into `texts` (numbers' literal texts); each view holds `backing`, which must
// keep both alive.
template <typename View>
policy::ObjectView WalkPodSpecs(const View& json, typename View::Value object,
                                policy::TextArena& texts,
                                const std::shared_ptr<const void>& backing);

// A nlohmann document and the texts a walk over it printed: the `backing` of views read from a
// document they own (FindPodSpecs(json&&), DecodeReviewWithNlohmann).
struct OwnedNlohmannDocument {
  nlohmann::json json;
  policy::TextArena texts;
};

namespace walk_detail {

using policy::ShapeError;

// A field's dotted path, spelled only when a shape error needs it: each level names its parent
// and lives on the stack, so reading a well-formed pod spec builds no path strings.
struct FieldPath {
  static constexpr size_t kNoIndex = static_cast<size_t>(-1);

  const std::string* root = nullptr;  // the pod spec's path, at the top level
  const FieldPath* parent = nullptr;  // otherwise
  std::string_view field;             // ".field" after the parent's path ("" for none)
  size_t index = kNoIndex;            // "[index]" after that

  std::string Spell() const {
    std::string out = parent ? parent->Spell() : *root;
    if (!field.empty()) {
      out += '.';
      out += field;
    }
    if (index != kNoIndex) out += "[" + std::to_string(index) + "]";
    return out;
  }
};

// Where a container sits, to spell a quantity's pointer only when a view needs it.
struct ContainerAt {
  const std::string& podPointer;
  std::string_view list;  // "containers", ...
  size_t index;
};

// Reads fields of one pod spec, recording type errors against dotted paths. Each object is read
// with one FindAll; fields are then checked in a fixed order, which is the order of the errors.
template <typename View>
class SpecReader {
 public:
  using Value = typename View::Value;
  using Found = std::optional<Value>;

  SpecReader(const View& json, policy::TextArena& texts, std::vector<ShapeError>& errors)
      : json_(json), texts_(texts), errors_(errors) {}

  // `v` (the member `key` of the object at `path`) if it has the wanted type; records a shape
  // error otherwise. Absent and null members yield nullopt silently (Kubernetes treats null as
  // absent).
  Found Typed(Found v, std::string_view key, JsonType want, const FieldPath& path) {
    if (!v) return std::nullopt;
    const JsonType type = json_.Type(*v);
    if (type == want) return v;
    if (type != JsonType::kNull) WrongType(key, want, type, path);
    return std::nullopt;
  }

  // Room for a list's items or a map's members, up to 64: one allocation for a usual list, and a
  // hostile body's huge list grows as it would have without this.
  size_t ReserveFor(Value list) const { return std::min<size_t>(json_.Size(list), 64); }

  std::string_view String(Found v, std::string_view key, const FieldPath& path) {
    Found s = Typed(v, key, JsonType::kString, path);
    return s ? json_.String(*s) : std::string_view();
  }

  // A resource list (limits, requests, a pod's overhead). `pointerOf(name)` spells the RFC 6901
  // pointer of the entry `name`, called only for a number whose text the parser dropped.
  template <typename PointerOf>
  std::vector<policy::ResourceEntry> Resources(Found list, std::string_view key,
                                               const FieldPath& path, PointerOf&& pointerOf) {
    list = Typed(list, key, JsonType::kObject, path);
    if (!list) return {};
    auto out = VectorPool<policy::ResourceEntry>::Take();
    out.reserve(ReserveFor(*list));
    json_.ForEachMember(*list, [&](std::string_view name, Value value) {
      const JsonType type = json_.Type(value);
      if (type == JsonType::kString) {
        out.push_back({name, {.text = json_.String(value)}});
      } else if (type == JsonType::kNumber) {
        out.push_back(
            {name, {.text = texts_.Own(json_.NumberText(value, [&] { return pointerOf(name); }))}});
      } else {
        out.push_back({name, {.text = JsonTypeName(type), .wrongType = true}});
      }
    });
    return out;  // sorted by name: ForEachMember goes in key order
  }

  std::vector<policy::EnvVarView> Env(Found list, const FieldPath& container) {
    list = Typed(list, "env", JsonType::kArray, container);
    if (!list) return {};
    auto out = VectorPool<policy::EnvVarView>::Take();
    out.reserve(ReserveFor(*list));
    json_.ForEachItem(*list, [&](size_t i, Value e) {
      const FieldPath at{.parent = &container, .field = "env", .index = i};
      if (!IsObject(e, at)) return;
      static constexpr std::array<std::string_view, 3> kKeys = {"name", "value", "valueFrom"};
      const auto [name, value, from] = json_.template FindAll<kKeys>(e);
      // Built where it is kept, every field at once.
      out.push_back({.name = String(name, "name", at),
                     .value = String(value, "value", at),
                     .fromSource = from && json_.Type(*from) != JsonType::kNull});
    });
    return out;
  }

  void Container(Value c, policy::ContainerKind kind, const ContainerAt& at, const FieldPath& path,
                 std::vector<policy::ContainerView>& out) {
    if (!IsObject(c, path)) return;
    static constexpr std::array<std::string_view, 5> kKeys = {"name", "resources", "env",
                                                              "securityContext", "restartPolicy"};
    const auto [name, resources, env, securityContext, restartPolicy] =
        json_.template FindAll<kKeys>(c);
    // Filled where it is kept: a container view is too big to build and then move.
    policy::ContainerView& view = out.emplace_back();
    view.kind = kind;
    view.index = at.index;
    view.name = String(name, "name", path);
    if (Found r = Typed(resources, "resources", JsonType::kObject, path)) {
      static constexpr std::array<std::string_view, 2> kLists = {"limits", "requests"};
      const auto [limits, requests] = json_.template FindAll<kLists>(*r);
      const FieldPath rpath{.parent = &path, .field = "resources"};
      auto pointerIn = [&at](std::string_view list) {
        return [&at, list](std::string_view name) {
          return at.podPointer + "/" + std::string(at.list) + "/" + std::to_string(at.index) +
                 "/resources/" + std::string(list) + "/" + JsonPointerEscape(name);
        };
      };
      view.limits = Resources(limits, "limits", rpath, pointerIn("limits"));
      view.requests = Resources(requests, "requests", rpath, pointerIn("requests"));
    }
    view.env = Env(env, path);
    if (Found sc = Typed(securityContext, "securityContext", JsonType::kObject, path)) {
      const FieldPath scpath{.parent = &path, .field = "securityContext"};
      Found p = Typed(json_.Find(*sc, "privileged"), "privileged", JsonType::kBoolean, scpath);
      view.privileged = p && json_.Bool(*p);
    }
    view.restartPolicy = String(restartPolicy, "restartPolicy", path);
  }

  void Tolerations(Found list, const FieldPath& spec, policy::PodSpecView& view) {
    list = Typed(list, "tolerations", JsonType::kArray, spec);
    view.hasTolerations = list.has_value();
    if (!list) return;
    view.tolerations = VectorPool<policy::TolerationView>::Take();
    view.tolerations.reserve(ReserveFor(*list));
    json_.ForEachItem(*list, [&](size_t i, Value t) {
      const FieldPath at{.parent = &spec, .field = "tolerations", .index = i};
      if (!IsObject(t, at)) return;
      static constexpr std::array<std::string_view, 4> kKeys = {"key", "operator", "value",
                                                                "effect"};
      const auto [key, op, value, effect] = json_.template FindAll<kKeys>(t);
      view.tolerations.push_back({.key = String(key, "key", at),
                                  .op = String(op, "operator", at),
                                  .value = String(value, "value", at),
                                  .effect = String(effect, "effect", at)});
    });
  }

  // spec.nodeSelector: label -> value. Views iterate members in key order, so it comes out sorted.
  void NodeSelector(Found map, const FieldPath& spec, policy::PodSpecView& view) {
    map = Typed(map, "nodeSelector", JsonType::kObject, spec);
    view.hasNodeSelector = map.has_value();
    if (!map) return;
    view.nodeSelector = VectorPool<policy::StringPair>::Take();
    view.nodeSelector.reserve(ReserveFor(*map));
    const FieldPath at{.parent = &spec, .field = "nodeSelector"};
    json_.ForEachMember(*map, [&](std::string_view key, Value value) {
      std::string_view label = String(value, key, at);
      if (json_.Type(value) == JsonType::kString) view.nodeSelector.emplace_back(key, label);
    });
  }

  // spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms.
  void RequiredNodeAffinity(Found affinity, const FieldPath& spec, policy::PodSpecView& view) {
    affinity = Typed(affinity, "affinity", JsonType::kObject, spec);
    if (!affinity) return;
    const FieldPath a{.parent = &spec, .field = "affinity"};
    Found node = Typed(json_.Find(*affinity, "nodeAffinity"), "nodeAffinity", JsonType::kObject, a);
    if (!node) return;
    const FieldPath n{.parent = &a, .field = "nodeAffinity"};
    constexpr std::string_view kRequired = "requiredDuringSchedulingIgnoredDuringExecution";
    Found required = Typed(json_.Find(*node, kRequired), kRequired, JsonType::kObject, n);
    if (!required) return;
    view.hasRequiredNodeAffinity = true;
    const FieldPath r{.parent = &n, .field = kRequired};
    Found terms =
        Typed(json_.Find(*required, "nodeSelectorTerms"), "nodeSelectorTerms", JsonType::kArray, r);
    if (!terms) return;
    json_.ForEachItem(*terms, [&](size_t i, Value t) {
      const FieldPath at{.parent = &r, .field = "nodeSelectorTerms", .index = i};
      if (!IsObject(t, at)) return;
      static constexpr std::array<std::string_view, 2> kKeys = {"matchExpressions", "matchFields"};
      const auto [expressions, fields] = json_.template FindAll<kKeys>(t);
      policy::NodeSelectorTermView term;
      term.onFields = fields && json_.Type(*fields) == JsonType::kArray;
      if (Found list = Typed(expressions, "matchExpressions", JsonType::kArray, at)) {
        json_.ForEachItem(*list, [&](size_t j, Value e) {
          const FieldPath ep{.parent = &at, .field = "matchExpressions", .index = j};
          if (IsObject(e, ep)) term.expressions.push_back(Requirement(e, ep));
        });
      }
      view.requiredNodeTerms.push_back(std::move(term));
    });
  }

  // Views iterate members in key order, so the annotations come out sorted.
  void Annotations(Value metadata, policy::PodSpecView& view) {
    const FieldPath at{.root = &view.metadataPath};
    static constexpr std::array<std::string_view, 1> kAnnotations = {"annotations"};
    Found a = Typed(json_.template FindAll<kAnnotations>(metadata)[0], "annotations",
                    JsonType::kObject, at);
    view.hasAnnotations = a.has_value();
    if (!a) return;
    view.annotations = VectorPool<policy::StringPair>::Take();
    view.annotations.reserve(ReserveFor(*a));
    json_.ForEachMember(*a, [&](std::string_view key, Value value) {
      if (json_.Type(value) != JsonType::kString) {
        errors_.push_back({view.metadataPath + ".annotations[" + std::string(key) + "]",
                           "must be string, got " + std::string(JsonTypeName(json_.Type(value)))});
        return;
      }
      view.annotations.emplace_back(key, json_.String(value));
    });
  }

 private:
  policy::NodeRequirementView Requirement(Value e, const FieldPath& at) {
    static constexpr std::array<std::string_view, 3> kKeys = {"key", "operator", "values"};
    const auto [key, op, values] = json_.template FindAll<kKeys>(e);
    policy::NodeRequirementView out{.key = String(key, "key", at),
                                    .op = String(op, "operator", at)};
    if (Found list = Typed(values, "values", JsonType::kArray, at)) {
      const FieldPath vp{.parent = &at, .field = "values"};
      json_.ForEachItem(*list, [&](size_t k, Value v) {
        const FieldPath item{.parent = &vp, .index = k};
        if (json_.Type(v) == JsonType::kString) {
          out.values.push_back(json_.String(v));
        } else {
          errors_.push_back(
              {item.Spell(), "must be string, got " + std::string(JsonTypeName(json_.Type(v)))});
        }
      });
    }
    return out;
  }

  // Out of line: a well-formed pod spec never gets here.
  [[gnu::cold, gnu::noinline]] void WrongType(std::string_view key, JsonType want, JsonType type,
                                              const FieldPath& path) {
    errors_.push_back(
        {path.Spell() + "." + std::string(key), "must be " + std::string(JsonTypeName(want)) +
                                                    ", got " + std::string(JsonTypeName(type))});
  }

  bool IsObject(Value v, const FieldPath& path) {
    const JsonType type = json_.Type(v);
    if (type == JsonType::kObject) return true;
    errors_.push_back({path.Spell(), "must be object, got " + std::string(JsonTypeName(type))});
    return false;
  }

  const View& json_;
  policy::TextArena& texts_;
  std::vector<ShapeError>& errors_;
};

// One step from a node's parent to the node: a member name or an array index. Steps name their
// parent step, so extending a location is O(1) however deep the object nests; path and pointer
// are spelled out only for pod specs, keeping the walk linear in the size of the object.
struct Step {
  size_t parent;         // index of the parent's step; kNoStep for the root's children
  std::string_view key;  // member name (points into the walked document); unused for array items
  size_t index = 0;      // array index
  bool isIndex = false;
};

constexpr size_t kNoStep = static_cast<size_t>(-1);

// A structured node waiting to be visited.
template <typename Value>
struct NodeToVisit {
  Value node;
  std::optional<Value> parent;  // the object holding `node`; none at the root, for array items
  size_t step;                  // kNoStep at the root
};

// A pod spec's location spelled out.
struct Location {
  std::string key;  // the member name under which the pod spec sits in its parent ("" if none)
  std::string path;
  std::string pointer;
};

// `chain` is working room, its contents replaced.
inline Location Locate(const std::vector<Step>& steps, size_t step,
                       std::vector<const Step*>& chain) {
  Location loc;
  chain.clear();
  for (size_t i = step; i != kNoStep; i = steps[i].parent) chain.push_back(&steps[i]);
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    const Step& s = **it;
    if (s.isIndex) {
      const std::string index = std::to_string(s.index);
      loc.path += "[" + index + "]";
      loc.pointer += "/" + index;
    } else {
      if (!loc.path.empty()) loc.path += '.';
      loc.path += s.key;
      loc.pointer += "/" + JsonPointerEscape(s.key);
    }
  }
  if (!chain.empty() && !chain.front()->isIndex) loc.key = chain.front()->key;
  return loc;
}

// Fills `view`, empty, where the walk keeps it (a pod spec view is too big to build and move).
template <typename View>
void ReadPodSpec(const View& json, const NodeToVisit<typename View::Value>& p, Location loc,
                 SpecReader<View>& reader, policy::PodSpecView& view) {
  using Value = typename View::Value;
  view.path = std::move(loc.path);
  view.pointer = std::move(loc.pointer);
  const FieldPath at{.root = &view.path};
  static constexpr std::array<std::string_view, 9> kKeys = {
      "initContainers", "containers",   "ephemeralContainers", "schedulerName", "nodeName",
      "tolerations",    "nodeSelector", "affinity",            "overhead"};
  const auto found = json.template FindAll<kKeys>(p.node);
  static constexpr policy::ContainerKind kKinds[] = {policy::ContainerKind::kInit,
                                                     policy::ContainerKind::kRegular,
                                                     policy::ContainerKind::kEphemeral};
  size_t containers = 0;  // all three lists' (Size is 0 for a field of the wrong type)
  for (size_t k = 0; k < 3; ++k) containers += found[k] ? json.Size(*found[k]) : 0;
  view.containers = VectorPool<policy::ContainerView>::Take();
  view.containers.reserve(std::min<size_t>(containers, 64));
  for (size_t k = 0; k < 3; ++k) {
    std::optional<Value> list = reader.Typed(found[k], kKeys[k], JsonType::kArray, at);
    if (!list) continue;
    json.ForEachItem(*list, [&](size_t i, Value c) {
      const FieldPath path{.parent = &at, .field = kKeys[k], .index = i};
      reader.Container(c, kKinds[k], ContainerAt{view.pointer, kKeys[k], i}, path, view.containers);
    });
  }
  view.schedulerName = reader.String(found[3], "schedulerName", at);
  view.hasSchedulerName = found[3] && json.Type(*found[3]) == JsonType::kString;
  view.nodeName = reader.String(found[4], "nodeName", at);
  reader.Tolerations(found[5], at, view);
  reader.NodeSelector(found[6], at, view);
  reader.RequiredNodeAffinity(found[7], at, view);
  view.overhead = reader.Resources(found[8], "overhead", at, [&view](std::string_view name) {
    return view.pointer + "/overhead/" + JsonPointerEscape(name);
  });
  // A pod spec's metadata is its sibling: {metadata, spec} in a Pod or a pod template.
  if (p.parent && loc.key == "spec") {
    static constexpr std::array<std::string_view, 1> kMetadata = {"metadata"};
    std::optional<Value> m = json.template FindAll<kMetadata>(*p.parent)[0];
    if (m && json.Type(*m) == JsonType::kObject) {
      view.metadataPath = view.path.substr(0, view.path.size() - 4) + "metadata";
      view.metadataPointer = view.pointer.substr(0, view.pointer.size() - 4) + "metadata";
      reader.Annotations(*m, view);
    }
  }
}

// A pod spec holds a "containers" list of objects. Other APIs use the same field name for lists
// of strings (a Pod's status.nodeAllocatableResourceClaimStatuses[].containers), so one object
// element is required before the object counts as a pod spec.
template <typename View>
bool IsPodSpec(const View& json, typename View::Value node) {
  static constexpr std::array<std::string_view, 1> kContainers = {"containers"};
  auto list = json.template FindAll<kContainers>(node)[0];
  if (!list || json.Type(*list) != JsonType::kArray) return false;
  bool anObject = false;
  json.ForEachItem(*list, [&](size_t, typename View::Value c) {
    anObject = anObject || json.Type(c) == JsonType::kObject;
  });
  return anObject;
}

// The root's status is written by controllers, and its metadata holds no pod spec; neither is
// the desired state a user asks admission for, so neither is searched.
inline bool SkipAtRoot(std::string_view key) { return key == "status" || key == "metadata"; }

inline bool IsStructured(JsonType type) {
  return type == JsonType::kObject || type == JsonType::kArray;
}

// The walk's working lists. Each thread keeps one set between walks (ScratchLease), so a walk
// allocates none of them once the thread has walked an object as large: only the views it
// returns. A set grown past kKeepScratch entries (a huge or hostile object) is freed instead.
template <typename Value>
struct WalkScratch {
  static constexpr size_t kKeepScratch = 1024;

  std::vector<Step> steps;
  std::vector<NodeToVisit<Value>> stack;
  std::vector<const Step*> chain;  // Locate's

  bool WorthKeeping() const {
    return steps.capacity() <= kKeepScratch && stack.capacity() <= kKeepScratch &&
           chain.capacity() <= kKeepScratch;
  }
};

// Borrows the thread's scratch for one walk and gives it back, emptied, at the end. A walk that
// started inside another on the same thread (none does today) finds the set taken and starts
// with empty lists: correct, only slower.
template <typename Value>
class ScratchLease {
 public:
  ScratchLease() : scratch_(std::move(Kept())) {}
  ~ScratchLease() {
    if (!scratch_.WorthKeeping()) return;
    scratch_.steps.clear();
    scratch_.stack.clear();
    scratch_.chain.clear();
    Kept() = std::move(scratch_);
  }
  ScratchLease(const ScratchLease&) = delete;
  ScratchLease& operator=(const ScratchLease&) = delete;

  WalkScratch<Value>* operator->() { return &scratch_; }

 private:
  static WalkScratch<Value>& Kept() {
    thread_local WalkScratch<Value> kept;
    return kept;
  }

  WalkScratch<Value> scratch_;  // a moved-from vector is empty: Kept() is left with none
};

}  // namespace walk_detail

template <typename View>
policy::ObjectView WalkPodSpecs(const View& json, typename View::Value object,
                                policy::TextArena& texts,
                                const std::shared_ptr<const void>& backing) {
  using namespace walk_detail;
  using Value = typename View::Value;
  policy::ObjectView result;
  SpecReader<View> reader(json, texts, result.shapeErrors);
  ScratchLease<Value> scratch;
  std::vector<Step>& steps = scratch->steps;
  // Depth-first with an explicit stack; children are pushed, then reversed so they pop in order.
  std::vector<NodeToVisit<Value>>& stack = scratch->stack;
  stack.push_back({object, std::nullopt, kNoStep});
  while (!stack.empty()) {
    const NodeToVisit<Value> p = stack.back();
    stack.pop_back();
    const size_t firstChild = stack.size();
    const JsonType type = json.Type(p.node);
    if (type == JsonType::kObject) {
      if (IsPodSpec(json, p.node)) {
        if (result.podSpecs.capacity() == 0) {
          result.podSpecs = VectorPool<policy::PodSpecView>::Take();
        }
        policy::PodSpecView& view = result.podSpecs.emplace_back();
        ReadPodSpec(json, p, Locate(steps, p.step, scratch->chain), reader, view);
        view.backing = backing;
        continue;  // a pod spec holds no further pod specs
      }
      json.ForEachMember(p.node, [&](std::string_view key, Value child) {
        if (!IsStructured(json.Type(child)) || (p.step == kNoStep && SkipAtRoot(key))) return;
        steps.push_back({.parent = p.step, .key = key});
        stack.push_back({child, p.node, steps.size() - 1});
      });
    } else if (type == JsonType::kArray) {
      json.ForEachItem(p.node, [&](size_t i, Value child) {
        if (!IsStructured(json.Type(child))) return;
        steps.push_back({.parent = p.step, .index = i, .isIndex = true});
        stack.push_back({child, std::nullopt, steps.size() - 1});
      });
    }
    std::reverse(stack.begin() + firstChild, stack.end());
  }
  return result;
}

extern template policy::ObjectView WalkPodSpecs(const NlohmannView&, NlohmannView::Value,
                                                policy::TextArena&,
                                                const std::shared_ptr<const void>&);
extern template policy::ObjectView WalkPodSpecs(const SimdjsonView&, SimdjsonView::Value,
                                                policy::TextArena&,
                                                const std::shared_ptr<const void>&);

}  // namespace gpugate::review
