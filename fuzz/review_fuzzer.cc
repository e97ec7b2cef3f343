// Fuzzes the AdmissionReview decoder (review::DecodeReview, simdjson) against its nlohmann twin
// (review::DecodeReviewWithNlohmann), which is documented to give the same results and messages
// except that it does not limit nesting: the two are compared field by field. A decoded review
// must have what the handler relies on (a known apiVersion, a uid), and its response envelope must
// be JSON that echoes both.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "fuzz/fuzz_check.h"
#include "review/admission_review.h"
#include "review/decision.h"

using namespace gpugate;

namespace {

void CheckEnvelope(const review::AdmissionRequest& request, const review::Decision& decision) {
  const std::string encoded = review::EncodeResponse(request, decision);
  const nlohmann::json doc = nlohmann::json::parse(encoded, nullptr, /*allow_exceptions=*/false);
  FUZZ_CHECK(!doc.is_discarded(), encoded);
  FUZZ_CHECK(doc.value("apiVersion", "") == request.apiVersion, encoded);
  const nlohmann::json& response = doc.at("response");
  FUZZ_CHECK(response.value("uid", "") == request.uid, encoded);
  FUZZ_CHECK(response.value("allowed", !decision.allowed) == decision.allowed, encoded);
  if (!decision.allowed) {
    FUZZ_CHECK(response.at("status").value("message", "") == decision.message, encoded);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  const Result<review::AdmissionRequest> simd = review::DecodeReview(body);
  if (simd) {
    FUZZ_CHECK(
        simd->apiVersion == "admission.k8s.io/v1" || simd->apiVersion == "admission.k8s.io/v1beta1",
        fuzz::Render(simd));
    FUZZ_CHECK(!simd->uid.empty(), fuzz::Render(simd));
    for (const policy::PodSpecView& pod : simd->object.podSpecs) {
      FUZZ_CHECK(pod.pointer.starts_with('/') && !pod.containers.empty(), fuzz::Render(simd));
    }
    CheckEnvelope(*simd, review::Allowed("fuzz"));
    // Messages quote decoded strings, which are valid UTF-8 (never cut mid-character).
    CheckEnvelope(*simd, review::Denied("fuzz", "uid " + simd->uid + " name " + simd->name));
  } else {
    FUZZ_CHECK(!simd.error().message.empty(), "an error without a message");
    // Only nesting is limited on the simdjson path; nlohmann would go as deep as asked.
    if (simd.error().message.starts_with("request body nests too deeply")) return 0;
  }
  // A parser borrowed from the pool again gives the same answer (no state kept between decodes).
  const Result<review::AdmissionRequest> again = review::DecodeReview(body);
  FUZZ_CHECK(fuzz::Render(again) == fuzz::Render(simd),
             "first:\n" + fuzz::Render(simd) + "\nsecond:\n" + fuzz::Render(again));
  const Result<review::AdmissionRequest> nlohmann = review::DecodeReviewWithNlohmann(body);
  FUZZ_CHECK(fuzz::Render(nlohmann) == fuzz::Render(simd),
             "simdjson:\n" + fuzz::Render(simd) + "\nnlohmann:\n" + fuzz::Render(nlohmann));
  return 0;
}
