// What the rules see of an object that carries a pod spec: a Pod, or a pod template inside a
// Deployment, Job, CronJob or any custom resource. The review layer builds these from the
// request's JSON (review/pod_spec_finder.h); rules never see a JSON library's types, so the
// request-path parser can change without touching a rule.
//
// The views borrow: their string_views point into the parsed document they were read from (the
// request's simdjson parser, or the nlohmann document of a watched pod), so reading a pod copies
// no names, values or quantities. A PodSpecView holds `backing`, which keeps that document (and
// the few texts the reader had to synthesize, such as a number's literal text) alive for as long
// as any copy of the view exists. Only locations (path, pointer) are built strings.
//
// Lists keep the object's order; resource lists are sorted by name so that every output built
// from them is deterministic.
#pragma once

#include <cstddef>
#include <forward_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpugate::policy {

enum class ContainerKind { kInit, kRegular, kEphemeral };

// "initContainers", "containers" or "ephemeralContainers".
std::string_view ContainerListField(ContainerKind kind);

// Owns texts that views point at but that no parsed document holds: a number's literal text as
// the reader printed it, strings given by a test's builder. Texts never move once owned.
class TextArena {
 public:
  // Takes `text` over and returns a view of it, valid as long as the arena.
  std::string_view Own(std::string text) { return texts_.emplace_front(std::move(text)); }

 private:
  // A list allocates nothing until a text comes (a deque allocates twice up front), and most
  // pods own no text: their quantities are strings in the document.
  std::forward_list<std::string> texts_;
};

// A resource quantity as written. JSON strings and numbers carry their text (Kubernetes accepts
// both); any other JSON type is kept as a type error so a rule can name it.
struct QuantityText {
  std::string_view text;   // the string's value or the number's literal text
  bool wrongType = false;  // true: not a string or number; `text` is the JSON type name
};

struct ResourceEntry {
  std::string_view name;  // e.g. "nvidia.com/gpu"
  QuantityText value;
};

struct EnvVarView {
  std::string_view name;
  std::string_view value;   // literal value ("" when absent)
  bool fromSource = false;  // set through valueFrom: the value is not known at admission
};

struct ContainerView {
  ContainerKind kind = ContainerKind::kRegular;
  size_t index = 0;  // position within its own list
  std::string_view name;
  std::vector<ResourceEntry> limits;    // sorted by name
  std::vector<ResourceEntry> requests;  // sorted by name
  std::vector<EnvVarView> env;
  bool privileged = false;         // securityContext.privileged
  std::string_view restartPolicy;  // init containers: "Always" marks a sidecar

  const QuantityText* Limit(std::string_view resource) const;
  const QuantityText* Request(std::string_view resource) const;
};

// A label or annotation: key and value.
using StringPair = std::pair<std::string_view, std::string_view>;

struct TolerationView {
  std::string_view key;
  std::string_view op;  // "Exists" or "Equal"; "" means Equal, as Kubernetes defaults it
  std::string_view value;
  std::string_view effect;  // "" matches every effect
};

// One requirement of a node selector term: key, operator (In, NotIn, Exists, DoesNotExist, Gt,
// Lt) and values, as in spec.affinity.nodeAffinity.
struct NodeRequirementView {
  std::string_view key;
  std::string_view op;
  std::vector<std::string_view> values;
};

// A term of requiredDuringSchedulingIgnoredDuringExecution: its matchExpressions, all of which
// must hold. `onFields`: it also has matchFields (on the node's name), which no label decides.
struct NodeSelectorTermView {
  std::vector<NodeRequirementView> expressions;
  bool onFields = false;
};

struct PodSpecView {
  std::string path;     // dotted field path for messages: "spec", "spec.template.spec"
  std::string pointer;  // RFC 6901 pointer to the pod spec: "/spec"
  std::string
      metadataPath;  // dotted path of the metadata beside it: "metadata", "spec.template.metadata"
  std::string metadataPointer;  // pointer to the metadata beside it ("" when it has none)

  std::vector<ContainerView> containers;  // init, then regular, then ephemeral
  // spec.overhead, sorted by name: what the pod's RuntimeClass adds for its sandbox (the API
  // server's RuntimeClass admission copies it in before any webhook sees the pod). Kubernetes
  // adds it to the pod's requests for scheduling and ResourceQuota.
  std::vector<ResourceEntry> overhead;
  std::string_view schedulerName;         // "" when absent
  bool hasSchedulerName = false;
  std::string_view nodeName;
  bool hasTolerations = false;  // the field exists (possibly empty) in the object
  std::vector<TolerationView> tolerations;
  bool hasNodeSelector = false;  // spec.nodeSelector exists as an object
  std::vector<StringPair> nodeSelector;  // sorted by key
  // spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution: a node must
  // match one of the terms. `hasRequiredNodeAffinity`: the field is set, so even an empty list
  // of terms constrains (Kubernetes then matches no node).
  bool hasRequiredNodeAffinity = false;
  std::vector<NodeSelectorTermView> requiredNodeTerms;
  bool hasAnnotations = false;  // metadata.annotations exists as an object
  std::vector<StringPair> annotations;  // sorted by key
  // Keeps alive what the string_views above point into; shared by every copy.
  std::shared_ptr<const void> backing;

  std::optional<std::string_view> Annotation(std::string_view key) const;
  // "spec.containers[1] \"trainer\"": the container named for messages.
  std::string ContainerLabel(const ContainerView& c) const;
};

// A field whose JSON type is not what Kubernetes allows, found while building the views.
struct ShapeError {
  std::string path;     // e.g. "spec.containers[0].resources.limits"
  std::string problem;  // e.g. "must be an object, got array"
};

// Everything the rules need from one admitted object.
struct ObjectView {
  std::vector<PodSpecView> podSpecs;  // in document order
  std::vector<ShapeError> shapeErrors;
};

// Empties `view`, giving the memory of its lists to this thread's VectorPools
// (common/vector_pool.h), from which the next walk builds its views: call it when done with a
// view that was built on this thread (review/pod_spec_walker.h).
void RecycleViews(ObjectView& view);

}  // namespace gpugate::policy
