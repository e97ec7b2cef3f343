#include "review/pod_spec_finder.h"

#include <algorithm>
#include <string>
#include <vector>

namespace gpugate::review {
namespace {

using nlohmann::json;
using policy::ShapeError;

std::string_view TypeName(const json& v) {
  switch (v.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::object:
      return "object";
    case json::value_t::array:
      return "array";
    case json::value_t::string:
      return "string";
    case json::value_t::boolean:
      return "boolean";
    case json::value_t::discarded:
      return "invalid";
    default:
      return "number";
  }
}

// Reads fields of one pod spec, recording type errors against dotted paths.
class SpecReader {
 public:
  explicit SpecReader(std::vector<ShapeError>& errors) : errors_(errors) {}

  // The member `key` of `obj` if it has the wanted type; records a shape error otherwise.
  // Absent and null members yield nullptr silently (Kubernetes treats null as absent).
  const json* Member(const json& obj, const char* key, json::value_t want,
                     const std::string& path) {
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) return nullptr;
    if (it->type() == want) return &*it;
    errors_.push_back({path + "." + key, "must be " + std::string(TypeName(json(want))) + ", got " +
                                             std::string(TypeName(*it))});
    return nullptr;
  }

  std::string String(const json& obj, const char* key, const std::string& path) {
    const json* v = Member(obj, key, json::value_t::string, path);
    return v ? v->get<std::string>() : std::string();
  }

  std::vector<policy::ResourceEntry> Resources(const json& resources, const char* key,
                                               const std::string& path) {
    std::vector<policy::ResourceEntry> out;
    const json* list = Member(resources, key, json::value_t::object, path);
    if (!list) return out;
    for (const auto& [name, value] : list->items()) {
      policy::QuantityText q;
      if (value.is_string()) {
        q.text = value.get<std::string>();
      } else if (value.is_number()) {
        q.text = value.dump();
      } else {
        q.text = TypeName(value);
        q.wrongType = true;
      }
      out.push_back({name, std::move(q)});
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    return out;
  }

  std::vector<policy::EnvVarView> Env(const json& container, const std::string& path) {
    std::vector<policy::EnvVarView> out;
    const json* env = Member(container, "env", json::value_t::array, path);
    if (!env) return out;
    for (size_t i = 0; i < env->size(); ++i) {
      const json& e = (*env)[i];
      std::string at = path + ".env[" + std::to_string(i) + "]";
      if (!e.is_object()) {
        errors_.push_back({at, "must be object, got " + std::string(TypeName(e))});
        continue;
      }
      policy::EnvVarView var{.name = String(e, "name", at), .value = String(e, "value", at)};
      var.fromSource = e.contains("valueFrom") && !e["valueFrom"].is_null();
      out.push_back(std::move(var));
    }
    return out;
  }

  void Container(const json& c, policy::ContainerKind kind, size_t index, const std::string& path,
                 std::vector<policy::ContainerView>& out) {
    if (!c.is_object()) {
      errors_.push_back({path, "must be object, got " + std::string(TypeName(c))});
      return;
    }
    policy::ContainerView view{.kind = kind, .index = index, .name = String(c, "name", path)};
    if (const json* r = Member(c, "resources", json::value_t::object, path)) {
      view.limits = Resources(*r, "limits", path + ".resources");
      view.requests = Resources(*r, "requests", path + ".resources");
    }
    view.env = Env(c, path);
    if (const json* sc = Member(c, "securityContext", json::value_t::object, path)) {
      const json* p = Member(*sc, "privileged", json::value_t::boolean, path + ".securityContext");
      view.privileged = p && p->get<bool>();
    }
    view.restartPolicy = String(c, "restartPolicy", path);
    out.push_back(std::move(view));
  }

  void Tolerations(const json& spec, policy::PodSpecView& view) {
    const json* list = Member(spec, "tolerations", json::value_t::array, view.path);
    view.hasTolerations = list != nullptr;
    if (!list) return;
    for (size_t i = 0; i < list->size(); ++i) {
      const json& t = (*list)[i];
      std::string at = view.path + ".tolerations[" + std::to_string(i) + "]";
      if (!t.is_object()) {
        errors_.push_back({at, "must be object, got " + std::string(TypeName(t))});
        continue;
      }
      view.tolerations.push_back({.key = String(t, "key", at),
                                  .op = String(t, "operator", at),
                                  .value = String(t, "value", at),
                                  .effect = String(t, "effect", at)});
    }
  }

  void Annotations(const json& metadata, policy::PodSpecView& view) {
    const json* a = Member(metadata, "annotations", json::value_t::object, view.metadataPath);
    view.hasAnnotations = a != nullptr;
    if (!a) return;
    for (const auto& [key, value] : a->items()) {
      if (!value.is_string()) {
        errors_.push_back({view.metadataPath + ".annotations[" + key + "]",
                           "must be string, got " + std::string(TypeName(value))});
        continue;
      }
      view.annotations.emplace_back(key, value.get<std::string>());
    }
    // nlohmann's object is a std::map, so items() is already sorted by key.
  }

 private:
  std::vector<ShapeError>& errors_;
};

// A pod spec found by the walk, with its location spelled out.
struct Frame {
  const json* node;
  const json* parent;  // the object holding `node`, or nullptr at the root
  std::string key;     // the member name under which `node` sits in `parent`
  std::string path;    // dotted path ("" at the root)
  std::string pointer;
};

// One step from a node's parent to the node: a member name or an array index. Steps name their
// parent step, so extending a location is O(1) however deep the object nests; path and pointer
// are spelled out only for pod specs, keeping the walk linear in the size of the object.
struct Step {
  size_t parent;         // index of the parent's step; kNoStep for the root's children
  std::string_view key;  // member name (points into the walked object); unused for array items
  size_t index = 0;      // array index
  bool isIndex = false;
};

constexpr size_t kNoStep = static_cast<size_t>(-1);

// A structured node waiting to be visited.
struct Pending {
  const json* node;
  const json* parent;  // the object holding `node`; nullptr at the root and for array items
  size_t step;         // kNoStep at the root
};

Frame Locate(const std::vector<Step>& steps, const Pending& p) {
  Frame f{p.node, p.parent, "", "", ""};
  std::vector<const Step*> chain;
  for (size_t i = p.step; i != kNoStep; i = steps[i].parent) chain.push_back(&steps[i]);
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    const Step& s = **it;
    if (s.isIndex) {
      const std::string index = std::to_string(s.index);
      f.path += "[" + index + "]";
      f.pointer += "/" + index;
    } else {
      if (!f.path.empty()) f.path += '.';
      f.path += s.key;
      f.pointer += "/" + JsonPointerEscape(s.key);
    }
  }
  if (!chain.empty() && !chain.front()->isIndex) f.key = chain.front()->key;
  return f;
}

policy::PodSpecView ReadPodSpec(const Frame& f, SpecReader& reader) {
  policy::PodSpecView view{.path = f.path, .pointer = f.pointer};
  const json& spec = *f.node;
  static constexpr std::pair<const char*, policy::ContainerKind> kLists[] = {
      {"initContainers", policy::ContainerKind::kInit},
      {"containers", policy::ContainerKind::kRegular},
      {"ephemeralContainers", policy::ContainerKind::kEphemeral},
  };
  for (const auto& [field, kind] : kLists) {
    const json* list = reader.Member(spec, field, json::value_t::array, view.path);
    if (!list) continue;
    for (size_t i = 0; i < list->size(); ++i) {
      std::string at = view.path + "." + field + "[" + std::to_string(i) + "]";
      reader.Container((*list)[i], kind, i, at, view.containers);
    }
  }
  view.schedulerName = reader.String(spec, "schedulerName", view.path);
  view.hasSchedulerName = spec.contains("schedulerName") && spec["schedulerName"].is_string();
  view.nodeName = reader.String(spec, "nodeName", view.path);
  reader.Tolerations(spec, view);
  // A pod spec's metadata is its sibling: {metadata, spec} in a Pod or a pod template.
  if (f.parent && f.key == "spec") {
    auto m = f.parent->find("metadata");
    if (m != f.parent->end() && m->is_object()) {
      std::string base = f.path.substr(0, f.path.size() - std::string_view("spec").size());
      view.metadataPath = base + "metadata";
      view.metadataPointer = f.pointer.substr(0, f.pointer.size() - 4) + "metadata";
      reader.Annotations(*m, view);
    }
  }
  return view;
}

// A pod spec holds a "containers" list of objects. Other APIs use the same field name for lists
// of strings (a Pod's status.nodeAllocatableResourceClaimStatuses[].containers), so one object
// element is required before the object counts as a pod spec.
bool IsPodSpec(const json& node) {
  auto it = node.find("containers");
  if (it == node.end() || !it->is_array()) return false;
  return std::any_of(it->begin(), it->end(), [](const json& c) { return c.is_object(); });
}

// The root's status is written by controllers, and its metadata holds no pod spec; neither is
// the desired state a user asks admission for, so neither is searched.
bool SkipAtRoot(const std::string& key) { return key == "status" || key == "metadata"; }

}  // namespace

std::string JsonPointerEscape(std::string_view key) {
  std::string out;
  out.reserve(key.size());
  for (char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

policy::ObjectView FindPodSpecs(const json& object) {
  policy::ObjectView result;
  SpecReader reader(result.shapeErrors);
  std::vector<Step> steps;
  // Depth-first with an explicit stack; children are pushed in reverse so they pop in order.
  std::vector<Pending> stack;
  stack.push_back({&object, nullptr, kNoStep});
  while (!stack.empty()) {
    Pending p = stack.back();
    stack.pop_back();
    const json& node = *p.node;
    if (node.is_object()) {
      if (IsPodSpec(node)) {
        result.podSpecs.push_back(ReadPodSpec(Locate(steps, p), reader));
        continue;  // a pod spec holds no further pod specs
      }
      const size_t firstChild = stack.size();
      for (const auto& [key, child] : node.items()) {
        if (!child.is_structured() || (p.step == kNoStep && SkipAtRoot(key))) continue;
        steps.push_back({.parent = p.step, .key = key});
        stack.push_back({&child, &node, steps.size() - 1});
      }
      std::reverse(stack.begin() + firstChild, stack.end());
    } else if (node.is_array()) {
      for (size_t i = node.size(); i-- > 0;) {
        const json& child = node[i];
        if (!child.is_structured()) continue;
        steps.push_back({.parent = p.step, .index = i, .isIndex = true});
        stack.push_back({&child, nullptr, steps.size() - 1});
      }
    }
  }
  return result;
}

}  // namespace gpugate::review
