// Test support: AdmissionReview requests built around an object, and response decoding.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace gpugate::testing {

struct ReviewOptions {
  std::string apiVersion = "admission.k8s.io/v1";
  std::string operation = "CREATE";
  std::string group = "";
  std::string version = "v1";
  std::string kind = "Pod";
  std::string resource = "pods";
  std::string ns = "team-a";
  std::string uid = "3f4c2a1e-0000-4000-8000-000000000001";
};

nlohmann::json MakeReview(const nlohmann::json& object, const ReviewOptions& options = {});

// A Pod with one container per entry of `limits` (each a {resource: quantity} map).
nlohmann::json GpuPod(const std::string& name, const nlohmann::json& limits);

// The response's decoded JSON Patch (an array), or null when the response has none.
nlohmann::json DecodedPatch(const nlohmann::json& responseReview);

std::string Base64Decode(const std::string& in);

}  // namespace gpugate::testing
