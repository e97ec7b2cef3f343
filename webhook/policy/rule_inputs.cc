#include "policy/rule_inputs.h"

#include <algorithm>

#include "policy/resource_values.h"

namespace gpugate::policy {
namespace {

bool SameResources(const std::vector<ResourceEntry>& a, const std::vector<ResourceEntry>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const auto& x, const auto& y) {
    return x.name == y.name && SameQuantity(x.value, y.value);
  });
}

bool SameEnv(const std::vector<EnvVarView>& a, const std::vector<EnvVarView>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const auto& x, const auto& y) {
    return x.name == y.name && x.value == y.value && x.fromSource == y.fromSource;
  });
}

bool SameContainer(const ContainerView& a, const ContainerView& b) {
  return a.kind == b.kind && a.index == b.index && a.name == b.name &&
         a.privileged == b.privileged && a.restartPolicy == b.restartPolicy &&
         SameResources(a.limits, b.limits) && SameResources(a.requests, b.requests) &&
         SameEnv(a.env, b.env);
}

bool SameTolerations(const std::vector<TolerationView>& a, const std::vector<TolerationView>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const auto& x, const auto& y) {
    return x.key == y.key && x.op == y.op && x.value == y.value && x.effect == y.effect;
  });
}

bool SameTerms(const std::vector<NodeSelectorTermView>& a,
               const std::vector<NodeSelectorTermView>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const auto& x, const auto& y) {
    return x.onFields == y.onFields &&
           std::equal(x.expressions.begin(), x.expressions.end(), y.expressions.begin(),
                      y.expressions.end(), [](const auto& p, const auto& q) {
                        return p.key == q.key && p.op == q.op && p.values == q.values;
                      });
  });
}

bool SameRuleAnnotations(const PodSpecView& a, const PodSpecView& b) {
  return std::all_of(kRuleAnnotations.begin(), kRuleAnnotations.end(),
                     [&](std::string_view key) { return a.Annotation(key) == b.Annotation(key); });
}

bool SamePodSpec(const PodSpecView& a, const PodSpecView& b) {
  return a.path == b.path && a.metadataPath == b.metadataPath &&
         std::equal(a.containers.begin(), a.containers.end(), b.containers.begin(),
                    b.containers.end(), SameContainer) &&
         a.hasSchedulerName == b.hasSchedulerName && a.schedulerName == b.schedulerName &&
         a.nodeName == b.nodeName && a.hasTolerations == b.hasTolerations &&
         SameTolerations(a.tolerations, b.tolerations) && a.hasNodeSelector == b.hasNodeSelector &&
         a.nodeSelector == b.nodeSelector &&
         a.hasRequiredNodeAffinity == b.hasRequiredNodeAffinity &&
         SameTerms(a.requiredNodeTerms, b.requiredNodeTerms) && SameRuleAnnotations(a, b);
}

}  // namespace

bool SameRuleInputs(const ObjectView& before, const ObjectView& after) {
  const auto sameError = [](const ShapeError& x, const ShapeError& y) {
    return x.path == y.path && x.problem == y.problem;
  };
  return std::equal(before.shapeErrors.begin(), before.shapeErrors.end(), after.shapeErrors.begin(),
                    after.shapeErrors.end(), sameError) &&
         std::equal(before.podSpecs.begin(), before.podSpecs.end(), after.podSpecs.begin(),
                    after.podSpecs.end(), SamePodSpec);
}

}  // namespace gpugate::policy
