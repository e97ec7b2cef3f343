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
  // Room for a GPU pod's usual patch (tolerations, a scheduler, an annotation): one allocation.
  PatchWriter() { out_.reserve(512); }

  // Starts an operation at the JSON pointer `path` + `more` (pointer texts, escaped already);
  // the caller appends the JSON value and calls End().
  void Op(std::string_view op, std::string_view path, std::string_view more = "") {
    out_ += out_.empty() ? "[" : ",";
    out_ += R"({"op":)";
    AppendJsonString(out_, op);
    out_ += R"(,"path":)";
    path_.assign(path);
    path_ += more;
    AppendJsonString(out_, path_);
    out_ += R"(,"value":)";
  }
  void End() { out_ += '}'; }
  std::string& out() { return out_; }
  std::string Finish() {
    if (out_.empty()) return std::string();
    out_ += ']';
    return std::move(out_);
  }

 private:
  std::string out_;
  std::string path_;  // the operation's path, spelled out to be quoted
};

void PatchTolerations(const policy::PodSpecView& pod, const policy::MutationPlan& plan,
                      PatchWriter& w) {
  if (plan.addTolerations.empty()) return;
  if (!pod.hasTolerations) {
    w.Op("add", pod.pointer, "/tolerations");
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
    w.Op("add", pod.pointer, "/tolerations/-");
    AppendToleration(w.out(), t);
    w.End();
  }
}

void PatchCoreLimit(const policy::PodSpecView& pod, const std::string& value, PatchWriter& w) {
  if (pod.metadataPointer.empty()) return;  // only objects with metadata are mutated (Pods)
  if (!pod.hasAnnotations) {
    w.Op("add", pod.metadataPointer, "/annotations");
    w.out() += '{';
    AppendJsonString(w.out(), policy::kVcudaCoreLimitAnnotation);
    w.out() += ':';
    AppendJsonString(w.out(), value);
    w.out() += '}';
  } else {
    w.Op("add", pod.metadataPointer,
         "/annotations/" + JsonPointerEscape(policy::kVcudaCoreLimitAnnotation));
    AppendJsonString(w.out(), value);
  }
  w.End();
}

// Each label as its own operation when spec.nodeSelector exists (the plan never names a key the
// pod already selects on), else the whole map.
void PatchNodeSelector(const policy::PodSpecView& pod, const policy::MutationPlan& plan,
                       PatchWriter& w) {
  if (plan.addNodeSelector.empty()) return;
  if (!pod.hasNodeSelector) {
    w.Op("add", pod.pointer, "/nodeSelector");
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
    w.Op("add", pod.pointer, "/nodeSelector/" + JsonPointerEscape(key));
    AppendJsonString(w.out(), value);
    w.End();
  }
}

}  // namespace

std::string BuildPatch(const policy::PodSpecView& pod, const policy::MutationPlan& plan) {
  PatchWriter w;
  PatchTolerations(pod, plan, w);
  if (plan.schedulerName) {
    w.Op(pod.hasSchedulerName ? "replace" : "add", pod.pointer, "/schedulerName");
    AppendJsonString(w.out(), *plan.schedulerName);
    w.End();
  }
  if (plan.coreLimit) PatchCoreLimit(pod, *plan.coreLimit, w);
  PatchNodeSelector(pod, plan, w);
  return w.Finish();
}

}  // namespace gpugate::review
