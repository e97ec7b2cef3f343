// Builders for policy tests: a PodSpecView in a few readable lines instead of nested
// aggregates. Header only; used by the *_test.cc files beside it, never by production code.
//
//   PodSpecView pod = PodBuilder("spec.template.spec")
//                         .Container("trainer").Limit("nvidia.com/gpu", "1")
//                         .Init("setup").Env("NVIDIA_VISIBLE_DEVICES", "all")
//                         .Build();
//
// Build() does what the review layer guarantees: init, regular, ephemeral order; indices within
// each list; limits, requests and annotations sorted by name. The builder keeps the strings it
// was given and every view it builds keeps them alive, as a decoded view keeps its document.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "policy/pod_view.h"
#include "policy/rule.h"
#include "policy/settings.h"

namespace gpugate::policy::testing {

class PodBuilder {
 public:
  explicit PodBuilder(std::string path = "spec", std::string metadataPath = "metadata") {
    pod_.path = std::move(path);
    pod_.metadataPath = std::move(metadataPath);
  }

  // Each starts a new container; the calls after it describe that container.
  PodBuilder& Init(std::string name) { return Add(ContainerKind::kInit, std::move(name)); }
  PodBuilder& Container(std::string name) { return Add(ContainerKind::kRegular, std::move(name)); }
  PodBuilder& Ephemeral(std::string name) {
    return Add(ContainerKind::kEphemeral, std::move(name));
  }
  // An init container with restartPolicy Always: a sidecar that keeps running beside the pod.
  PodBuilder& Sidecar(std::string name) {
    Add(ContainerKind::kInit, std::move(name));
    Last().restartPolicy = "Always";  // a literal: lives for the whole program
    return *this;
  }

  PodBuilder& Limit(std::string resource, std::string value) {
    Last().limits.push_back({Own(std::move(resource)), {Own(std::move(value))}});
    return *this;
  }
  PodBuilder& Request(std::string resource, std::string value) {
    Last().requests.push_back({Own(std::move(resource)), {Own(std::move(value))}});
    return *this;
  }
  // Sets both, as most GPU pods do.
  PodBuilder& Gpu(std::string resource, std::string value) {
    Limit(resource, value);
    return Request(std::move(resource), std::move(value));
  }
  // A limit whose JSON value is not a string or number; `jsonType` is e.g. "object".
  PodBuilder& LimitOfType(std::string resource, std::string jsonType) {
    Last().limits.push_back({Own(std::move(resource)), {Own(std::move(jsonType)), true}});
    return *this;
  }
  PodBuilder& RequestOfType(std::string resource, std::string jsonType) {
    Last().requests.push_back({Own(std::move(resource)), {Own(std::move(jsonType)), true}});
    return *this;
  }

  PodBuilder& Env(std::string name, std::string value) {
    Last().env.push_back({Own(std::move(name)), Own(std::move(value)), false});
    return *this;
  }
  PodBuilder& EnvFrom(std::string name) {
    Last().env.push_back({Own(std::move(name)), "", true});
    return *this;
  }
  PodBuilder& Privileged() {
    Last().privileged = true;
    return *this;
  }

  // An entry of spec.overhead (what a RuntimeClass adds), not of a container.
  PodBuilder& Overhead(std::string resource, std::string value) {
    pod_.overhead.push_back({Own(std::move(resource)), {Own(std::move(value))}});
    return *this;
  }

  PodBuilder& Annotation(std::string key, std::string value) {
    pod_.hasAnnotations = true;
    pod_.annotations.emplace_back(Own(std::move(key)), Own(std::move(value)));
    return *this;
  }
  PodBuilder& SchedulerName(std::string name) {
    pod_.schedulerName = Own(std::move(name));
    pod_.hasSchedulerName = true;
    return *this;
  }
  PodBuilder& NodeName(std::string name) {
    pod_.nodeName = Own(std::move(name));
    return *this;
  }
  PodBuilder& NodeSelector(std::string key, std::string value) {
    pod_.hasNodeSelector = true;
    pod_.nodeSelector.emplace_back(Own(std::move(key)), Own(std::move(value)));
    return *this;
  }
  // Adds a required node affinity term; each expression is {key, operator, values...}.
  PodBuilder& NodeTerm(const std::vector<std::vector<std::string>>& expressions,
                       bool onFields = false) {
    pod_.hasRequiredNodeAffinity = true;
    NodeSelectorTermView term{.onFields = onFields};
    for (const auto& e : expressions) {
      NodeRequirementView r{.key = Own(e.at(0)), .op = Own(e.at(1))};
      for (size_t i = 2; i < e.size(); ++i) r.values.push_back(Own(e[i]));
      term.expressions.push_back(std::move(r));
    }
    pod_.requiredNodeTerms.push_back(std::move(term));
    return *this;
  }

  PodSpecView Build() const {
    PodSpecView pod = pod_;
    pod.backing = texts_;
    auto byName = [](const auto& a, const auto& b) { return a.name < b.name; };
    for (auto& c : pod.containers) {
      std::stable_sort(c.limits.begin(), c.limits.end(), byName);
      std::stable_sort(c.requests.begin(), c.requests.end(), byName);
    }
    std::stable_sort(
        pod.containers.begin(), pod.containers.end(),
        [](const ContainerView& a, const ContainerView& b) { return a.kind < b.kind; });
    std::stable_sort(pod.overhead.begin(), pod.overhead.end(), byName);
    std::stable_sort(pod.annotations.begin(), pod.annotations.end());
    std::stable_sort(pod.nodeSelector.begin(), pod.nodeSelector.end());
    return pod;
  }

 private:
  PodBuilder& Add(ContainerKind kind, std::string name) {
    size_t index = std::count_if(pod_.containers.begin(), pod_.containers.end(),
                                 [kind](const ContainerView& c) { return c.kind == kind; });
    ContainerView c;
    c.kind = kind;
    c.index = index;
    c.name = Own(std::move(name));
    pod_.containers.push_back(std::move(c));
    return *this;
  }
  ContainerView& Last() {
    if (pod_.containers.empty()) Container("main");
    return pod_.containers.back();
  }

  std::string_view Own(std::string text) { return texts_->Own(std::move(text)); }

  std::shared_ptr<TextArena> texts_ = std::make_shared<TextArena>();
  PodSpecView pod_;
};

// A managed resource placed by `scheduler` ("" = any), for settings in tests.
inline ManagedResource Resource(std::string name, std::string scheduler = "") {
  ManagedResource r;
  r.name = std::move(name);
  r.schedulerName = std::move(scheduler);
  return r;
}

// Runs one rule and returns its messages, checking that every violation carries `rule`.
inline std::vector<std::string> RunRule(RuleCheck check, std::string_view rule,
                                        const PodSpecView& pod, const Settings& settings) {
  std::vector<Violation> out;
  check(ManagedPod(pod, settings), out);
  std::vector<std::string> messages;
  for (const auto& v : out) {
    messages.push_back(v.rule == rule ? v.message
                                      : "wrong rule " + std::string(v.rule) + ": " + v.message);
  }
  return messages;
}

// One row of a rule's table test: a pod, the settings, and the exact messages expected.
struct RuleCase {
  std::string name;
  PodSpecView pod;
  std::vector<std::string> want;
  Settings settings = {};
};

// Runs `check` over every row and expects each row's messages, in order.
template <size_t N>
void ExpectRule(RuleCheck check, std::string_view rule, const RuleCase (&cases)[N]) {
  for (const RuleCase& c : cases) {
    EXPECT_EQ(RunRule(check, rule, c.pod, c.settings), c.want) << c.name;
  }
}

}  // namespace gpugate::policy::testing
