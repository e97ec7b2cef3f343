// What the fuzz targets share: an invariant check that aborts with a message (libFuzzer then saves
// the input as a crash), and renderings of the review layer's results as text, so two decodes can
// be compared whole and a failed comparison prints what differs.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "policy/pod_view.h"
#include "review/admission_review.h"

namespace gpugate::fuzz {

[[noreturn]] inline void Fail(const char* file, int line, const char* what,
                              std::string_view detail) {
  std::fprintf(stderr, "%s:%d: invariant failed: %s\n%.*s\n", file, line, what,
               static_cast<int>(detail.size()), detail.data());
  std::abort();
}

// FUZZ_CHECK(condition, detail): `detail` (a string) is evaluated only on failure.
#define FUZZ_CHECK(cond, detail)                                             \
  do {                                                                       \
    if (!(cond)) ::gpugate::fuzz::Fail(__FILE__, __LINE__, #cond, (detail)); \
  } while (0)

// Appends every part to `out` (the views' fields are string_views, which `+` does not join).
template <typename... Parts>
void Append(std::string& out, const Parts&... parts) {
  (out.append(std::string_view(parts)), ...);
}

// Every field of the views, one per line, in order.
inline std::string Render(const policy::ObjectView& v) {
  std::string out;
  for (const policy::PodSpecView& p : v.podSpecs) {
    Append(out, "pod ", p.path, " ", p.pointer, " meta ", p.metadataPath, " ", p.metadataPointer,
           " scheduler ", p.hasSchedulerName ? "=" : "?", p.schedulerName, " node ", p.nodeName,
           p.hasTolerations ? " tolerations" : "", p.hasAnnotations ? " annotations" : "", "\n");
    for (const policy::ContainerView& c : p.containers) {
      Append(out, "  container ", std::to_string(static_cast<int>(c.kind)), "/",
             std::to_string(c.index), " ", c.name, c.privileged ? " privileged" : "", " restart ",
             c.restartPolicy, "\n");
      for (const auto& r : c.limits) {
        Append(out, "    limit ", r.name, "=", r.value.text, r.value.wrongType ? "!" : "", "\n");
      }
      for (const auto& r : c.requests) {
        Append(out, "    request ", r.name, "=", r.value.text, r.value.wrongType ? "!" : "", "\n");
      }
      for (const auto& e : c.env) {
        Append(out, "    env ", e.name, "=", e.value, e.fromSource ? " from" : "", "\n");
      }
    }
    for (const auto& t : p.tolerations) {
      Append(out, "  toleration ", t.key, " ", t.op, " ", t.value, " ", t.effect, "\n");
    }
    for (const auto& [k, a] : p.annotations) Append(out, "  annotation ", k, "=", a, "\n");
  }
  for (const policy::ShapeError& e : v.shapeErrors)
    out += "shape " + e.path + ": " + e.problem + "\n";
  return out;
}

inline std::string Render(const review::AdmissionRequest& r) {
  return "review " + r.apiVersion + " uid " + r.uid + " kind " + r.kind.group + "/" +
         r.kind.version + "/" + r.kind.kind + " resource " + r.resource + "/" + r.subResource +
         " name " + r.name + " ns " + r.ns + " op " + r.operation + (r.dryRun ? " dry" : "") +
         (r.hasObject ? " object" : "") + " meta " + r.objectMeta.name + "/" + r.objectMeta.uid +
         (r.objectMeta.deleting ? " deleting" : "") + " old " + r.oldObjectMeta.name + "/" +
         r.oldObjectMeta.uid + (r.oldObjectMeta.deleting ? " deleting" : "") + " phase " + r.phase +
         (r.samePodSpecs ? " same-pod-specs" : "") + "\n" + Render(r.object) +
         (r.hasOldObject ? "old object\n" + Render(r.oldObject) : "");
}

inline std::string Render(const Result<review::AdmissionRequest>& r) {
  return r ? Render(*r) : "error: " + r.error().message;
}

}  // namespace gpugate::fuzz
