// Fuzzes the whole admission path as the server runs it: DecodeReview, then Handler::Validate
// (with a local in-memory quota ledger whose limits are small, so the charge, refusal and release
// paths all run) and Handler::Mutate, then EncodeResponse. Each input is run under the built-in
// settings, under a configured set (scheduler, tolerations, fixed core limit, per-container
// maximum) and under that set in warn and audit modes (quota in audit). Checked:
//   - every decision is allowed, or denied with a message and a 4xx/5xx code; with every rule in
//     warn or audit mode, nothing is refused for a rule or for quota;
//   - warnings are valid UTF-8 without control characters and within the API's limits, whole;
//     audit annotations have keys the API server accepts;
//   - the response envelope is JSON echoing the request's apiVersion and uid;
//   - a charged pod is charged once (a second review is "already-charged") and its DELETE gives
//     every milli-unit back; a refused charge leaves the ledger untouched;
//   - a mutate patch is a JSON Patch that applies to request.object with nlohmann's patch(), and
//     mutating the patched object again changes nothing (reinvocation is idempotent) and it still
//     validates.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "admission/handler.h"
#include "common/base64.h"
#include "fuzz/fuzz_check.h"
#include "policy/settings.h"
#include "quota/ledger.h"
#include "review/admission_review.h"
#include "review/notes.h"

using namespace gpugate;

namespace {

constexpr int64_t kMilli = 1000;

quota::QuotaConfig SmallQuota() {
  quota::QuotaConfig config;
  for (const char* ns : {"team-a", "default", "namespaceValue", ""}) {
    config.limits[ns] = {{"nvidia.com/gpu", 2 * kMilli},
                         {"tencent.com/vcuda-core", 150 * kMilli},
                         {"gpu-equivalents", 3 * kMilli}};
  }
  config.weights["gpu-equivalents"] = {
      {"nvidia.com/gpu", kMilli}, {"tencent.com/vcuda-core", 10}, {"amd.com/gpu", kMilli}};
  return config;
}

policy::Settings Configured() {
  policy::Settings s;
  s.resources.push_back({.name = "volcano.sh/gpu-memory", .schedulerName = "volcano"});
  s.resources.push_back({.name = "example.com/*", .isPattern = true, .maxPerContainer = 1});
  for (policy::ManagedResource& r : s.resources) {
    if (r.name == "nvidia.com/gpu") r.maxPerContainer = 1;
  }
  s.schedulerName = "hami-scheduler";
  s.tolerations = {{.key = "dedicated", .op = "Equal", .value = "gpu", .effect = "NoSchedule"}};
  s.coreLimit = {.mode = policy::CoreLimitMode::kFixed, .value = 60};
  return s;
}

// Every rule in warn mode but two in audit, and quota in audit: findings never refuse.
policy::Settings Warned() {
  policy::Settings s = Configured();
  s.modes.defaultMode = policy::Mode::kWarn;
  s.modes.rules = {{"whole-units", policy::Mode::kAudit}, {"quota", policy::Mode::kAudit}};
  return s;
}

// Runes in `text`, or -1 when it is not valid UTF-8 or holds a control character (C0, DEL, C1).
long PrintableRunes(std::string_view text) {
  long runes = 0;
  for (size_t i = 0; i < text.size(); ++runes) {
    const auto b = static_cast<unsigned char>(text[i]);
    size_t n = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xE ? 3 : (b >> 3) == 0x1E ? 4 : 0;
    if (n == 0 || i + n > text.size() || b < 0x20 || b == 0x7F) return -1;
    if (b == 0xC2 && static_cast<unsigned char>(text[i + 1]) < 0xA0) return -1;
    for (size_t k = 1; k < n; ++k) {
      if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80) return -1;
    }
    i += n;
  }
  return runes;
}

std::string Describe(const review::Decision& d) {
  return std::string(d.allowed ? "allowed " : "denied ") + std::to_string(d.code) + " " + d.reason +
         ": " + d.message + (d.patch.empty() ? "" : " patch " + d.patch);
}

// Returns the response's "response" object.
nlohmann::json CheckDecision(const review::AdmissionRequest& request, const review::Decision& d) {
  FUZZ_CHECK(!d.reason.empty(), Describe(d));
  if (d.allowed) {
    FUZZ_CHECK(d.code == 200 && d.message.empty(), Describe(d));
  } else {
    FUZZ_CHECK(!d.message.empty() && d.code >= 400 && d.code < 600 && d.patch.empty(), Describe(d));
  }
  long total = 0;
  for (const std::string& w : d.warnings) {
    const long runes = PrintableRunes(w);
    FUZZ_CHECK(runes > 0 && runes <= static_cast<long>(review::kWarningMaxRunes), w);
    total += runes;
  }
  FUZZ_CHECK(d.warnings.size() <= review::kMaxWarnings &&
                 total <= static_cast<long>(review::kWarningsMaxRunes),
             Describe(d));
  for (const review::AuditAnnotation& a : d.auditAnnotations) {
    FUZZ_CHECK(review::IsAuditAnnotationKey(a.key) && PrintableRunes(a.value) > 0, a.key);
  }
  const std::string encoded = review::EncodeResponse(request, d);
  const nlohmann::json doc = nlohmann::json::parse(encoded, nullptr, /*allow_exceptions=*/false);
  FUZZ_CHECK(!doc.is_discarded() && doc.is_object(), encoded);
  FUZZ_CHECK(doc.value("apiVersion", "") == request.apiVersion, encoded);
  const nlohmann::json& response = doc.at("response");
  FUZZ_CHECK(response.value("uid", "") == request.uid, encoded);
  FUZZ_CHECK(response.value("allowed", !d.allowed) == d.allowed, encoded);
  return response;
}

bool AllUnused(const quota::Accounting& ledger) {
  for (const quota::NamespaceUsage& ns : ledger.Usage()) {
    for (const auto& [name, usage] : ns.resources) {
      if (usage.used != 0) return false;
    }
  }
  return true;
}

// Charging twice charges once; the pod's DELETE releases all of it.
void CheckLedger(const admission::Handler& handler, const review::AdmissionRequest& request,
                 const review::Decision& first) {
  const quota::Accounting& ledger = *handler.ledger();
  if (first.reason == "quota-exceeded") {
    FUZZ_CHECK(AllUnused(ledger), Describe(first));
    return;
  }
  if (first.reason != "charged") return;
  FUZZ_CHECK(!AllUnused(ledger), Describe(first));
  const review::Decision second = handler.Validate(request);
  FUZZ_CHECK(second.allowed && second.reason == "already-charged", Describe(second));
  review::AdmissionRequest deletion = request;
  deletion.operation = "DELETE";
  deletion.oldObjectMeta = request.objectMeta;
  const review::Decision released = handler.Validate(deletion);
  CheckDecision(deletion, released);
  FUZZ_CHECK(released.reason == "released", Describe(released));
  FUZZ_CHECK(AllUnused(ledger), Describe(released));
}

// The patch applies to request.object; mutating and validating the result are both no-ops.
void CheckPatch(const admission::Handler& handler, std::string_view body,
                const review::Decision& mutated, const nlohmann::json& response) {
  FUZZ_CHECK(response.value("patchType", "") == "JSONPatch", response.dump());
  const Result<std::string> patchText = Base64Decode(response.value("patch", ""));
  FUZZ_CHECK(patchText && *patchText == mutated.patch, response.dump());
  const nlohmann::json patch =
      nlohmann::json::parse(mutated.patch, nullptr, /*allow_exceptions=*/false);
  FUZZ_CHECK(patch.is_array() && !patch.empty(), mutated.patch);
  nlohmann::json review = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (review.is_discarded()) return;  // simdjson accepted what nlohmann does not: nothing to patch
  nlohmann::json& object = review.at("request").at("object");
  try {
    object = object.patch(patch);
  } catch (const nlohmann::json::exception& e) {
    FUZZ_CHECK(false, std::string(e.what()) + "\npatch: " + mutated.patch);
  }
  const std::string patchedBody = review.dump();
  const Result<review::AdmissionRequest> again = review::DecodeReview(patchedBody);
  FUZZ_CHECK(again.has_value(), patchedBody);
  const review::Decision remutated = handler.Mutate(*again);
  FUZZ_CHECK(remutated.allowed && remutated.patch.empty(),
             "first: " + mutated.patch + "\nagain: " + Describe(remutated));
  const admission::Handler noQuota(handler.settings(), nullptr);
  const review::Decision valid = noQuota.Validate(*again);
  FUZZ_CHECK(valid.allowed, "after " + mutated.patch + ": " + Describe(valid));
}

void Run(const policy::Settings& settings, std::string_view body,
         const review::AdmissionRequest& request, bool nothingDenies = false) {
  quota::Ledger ledger(SmallQuota(), nullptr);
  FUZZ_CHECK(ledger.Open().has_value(), "ledger Open");
  const admission::Handler handler(settings, &ledger);

  const review::Decision validated = handler.Validate(request);
  CheckDecision(request, validated);
  if (nothingDenies) FUZZ_CHECK(validated.allowed || validated.code >= 500, Describe(validated));
  CheckLedger(handler, request, validated);

  const review::Decision mutated = handler.Mutate(request);
  const nlohmann::json response = CheckDecision(request, mutated);
  if (!mutated.patch.empty()) CheckPatch(handler, body, mutated, response);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const policy::Settings* const kDefaults = new policy::Settings();
  static const policy::Settings* const kConfigured = new policy::Settings(Configured());
  static const policy::Settings* const kWarned = new policy::Settings(Warned());
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  const Result<review::AdmissionRequest> request = review::DecodeReview(body);
  if (!request) return 0;  // the transport answers 400; review_fuzzer covers the decoder
  Run(*kDefaults, body, *request);
  Run(*kConfigured, body, *request);
  Run(*kWarned, body, *request, /*nothingDenies=*/true);
  return 0;
}
