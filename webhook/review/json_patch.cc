#include "review/json_patch.h"

#include "common/strings.h"
#include "review/pod_spec_finder.h"

namespace gpugate::review {
namespace {

void AppendToleration(std::string& out, const policy::TolerationView& t) {
  out += '{';
  bool first = true;
  auto field = [&](const char* name, std::string_view value) {
    if (value.empty()) return;
    if (!first) out += ',';
    first = false;
    AppendJsonString(out, name);
    out += ':';
    AppendJsonString(out, value);
  };
  field("key", t.key);
  field("operator", t.op);
  field("value", t.value);
  field("effect", t.effect);
  out += '}';
}

class PatchWriter {
 public:
  // Starts an operation; the caller appends the JSON value and calls End().
  void Op(std::string_view op, const std::string& path) {
    out_ += out_.empty() ? "[" : ",";
    out_ += R"({"op":)";
    AppendJsonString(out_, op);
    out_ += R"(,"path":)";
    AppendJsonString(out_, path);
    out_ += R"(,"value":)";
  }
  void End() { out_ += '}'; }
  std::string& out() { return out_; }
  std::string Finish() { return out_.empty() ? std::string() : out_ + "]"; }

 private:
  std::string out_;
};

void PatchTolerations(const policy::PodSpecView& pod, const policy::MutationPlan& plan,
                      PatchWriter& w) {
  if (plan.addTolerations.empty()) return;
  const std::string list = pod.pointer + "/tolerations";
  if (!pod.hasTolerations) {
    w.Op("add", list);
    w.out() += '[';
    for (size_t i = 0; i < plan.addTolerations.size(); ++i) {
      if (i) w.out() += ',';
      AppendToleration(w.out(), plan.addTolerations[i]);
    }
    w.out() += ']';
    w.End();
    return;
  }
  for (const auto& t : plan.addTolerations) {
    w.Op("add", list + "/-");
    AppendToleration(w.out(), t);
    w.End();
  }
}

void PatchCoreLimit(const policy::PodSpecView& pod, const std::string& value, PatchWriter& w) {
  if (pod.metadataPointer.empty()) return;  // only objects with metadata are mutated (Pods)
  const std::string annotations = pod.metadataPointer + "/annotations";
  if (!pod.hasAnnotations) {
    w.Op("add", annotations);
    w.out() += '{';
    AppendJsonString(w.out(), policy::kVcudaCoreLimitAnnotation);
    w.out() += ':';
    AppendJsonString(w.out(), value);
    w.out() += '}';
  } else {
    w.Op("add", annotations + "/" + JsonPointerEscape(policy::kVcudaCoreLimitAnnotation));
    AppendJsonString(w.out(), value);
  }
  w.End();
}

// Each label as its own operation when spec.nodeSelector exists (the plan never names a key the
// pod already selects on), else the whole map.
void PatchNodeSelector(const policy::PodSpecView& pod, const policy::MutationPlan& plan,
                       PatchWriter& w) {
  if (plan.addNodeSelector.empty()) return;
  const std::string map = pod.pointer + "/nodeSelector";
  if (!pod.hasNodeSelector) {
    w.Op("add", map);
    w.out() += '{';
    for (size_t i = 0; i < plan.addNodeSelector.size(); ++i) {
      if (i) w.out() += ',';
      AppendJsonString(w.out(), plan.addNodeSelector[i].first);
      w.out() += ':';
      AppendJsonString(w.out(), plan.addNodeSelector[i].second);
    }
    w.out() += '}';
    w.End();
    return;
  }
  for (const auto& [key, value] : plan.addNodeSelector) {
    w.Op("add", map + "/" + JsonPointerEscape(key));
    AppendJsonString(w.out(), value);
    w.End();
  }
}

}  // namespace

std::string BuildPatch(const policy::PodSpecView& pod, const policy::MutationPlan& plan) {
  PatchWriter w;
  PatchTolerations(pod, plan, w);
  if (plan.schedulerName) {
    w.Op(pod.hasSchedulerName ? "replace" : "add", pod.pointer + "/schedulerName");
    AppendJsonString(w.out(), *plan.schedulerName);
    w.End();
  }
  if (plan.coreLimit) PatchCoreLimit(pod, *plan.coreLimit, w);
  PatchNodeSelector(pod, plan, w);
  return w.Finish();
}

}  // namespace gpugate::review
