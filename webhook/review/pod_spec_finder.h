// Finds every pod spec inside an object, generically: any JSON object holding a "containers"
// list is a pod spec, whether it is a Pod's spec, a Deployment's template or a field deep in a
// custom resource (Volcano Job tasks, Kubeflow replica specs, Ray worker groups...). One code
// path for every kind, because the apiserver does not check quantities inside custom resources.
//
// The walk itself (pod_spec_walker.h) is one template over a JSON view, so the request path
// (DecodeReview, on simdjson) and this nlohmann front end (pods from the cluster watch) share it.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "policy/pod_view.h"

namespace gpugate::review {

// Walks `object` iteratively (a deeply nested body cannot overflow the stack) and returns the
// views in a deterministic order (object members by key, array items by index), with shape
// errors for fields of the wrong JSON type. Quantities written as non-integer JSON numbers carry
// nlohmann's printing of the double (the text is gone once parsed); DecodeReview keeps the
// literal text. The apiserver writes a Pod's quantities as strings, so watched pods never differ.
//
// The views borrow their strings from `object`, which must outlive them; the second form takes
// the document over and the views keep it alive.
policy::ObjectView FindPodSpecs(const nlohmann::json& object);
policy::ObjectView FindPodSpecs(nlohmann::json&& object);

// RFC 6901: "~" -> "~0", "/" -> "~1".
std::string JsonPointerEscape(std::string_view key);

}  // namespace gpugate::review
