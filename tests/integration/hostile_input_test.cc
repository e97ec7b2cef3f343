// Hostile input against the real `gpugate serve` over real TLS: one table of bad requests, each of
// which must get a 4xx with a clear reason or a well-formed AdmissionReview with `allowed: false`
// and a message, within a bounded wait, while the server stays up and keeps deciding correctly.
// server_test.cc (BadRequestsGetClearClientErrorsAndServerStaysUp) checks one example of the
// common mistakes; this table goes after the parser, the envelope, the pod-spec finder, the
// quantity parser, the body cap and HTTP framing on purpose. docs/reliability.md lists the
// results ("Hostile input").
#include <gtest/gtest.h>
#include <httplib.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "gpugate_process.h"
#include "raw_connection.h"
#include "review_builder.h"
#include "test_paths.h"

namespace gpugate::testing {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

// Every answer must come within this; the issue asks for a second, which the output records.
constexpr auto kBound = std::chrono::seconds(5);

constexpr const char* kNotJson = "request body is not valid JSON";
constexpr const char* kNotObject = "request body must be a JSON object (an AdmissionReview)";
constexpr const char* kTooDeep = "request body nests too deeply (more than 1024 levels";
constexpr const char* kNoUid = "request.uid must be a non-empty string";
constexpr const char* kNotObjectShape = "request.object: must be object";
constexpr const char* kHalfGpu =
    "spec.containers[0] \"c0\": nvidia.com/gpu limit \"0.5\" must be a whole number of GPUs";
constexpr const char* kValidReviewFile = "/tests/testdata/validate/pod-fractional-gpu-denied";

// What a case must get back.
struct Expect {
  int status;            // the HTTP status
  std::string has;       // in the body (4xx), or in response.status.message (200, denied)
  bool allowed = false;  // for 200: the decision
};

struct Case {
  std::string name;
  // Builds the body from the case's id: its request's uid and namespace and its pod's name (so
  // every admitted GPU pod is a separate quota charge). Built when the case runs: some are
  // megabytes.
  std::function<std::string(const std::string& id)> body;
  Expect want;
  std::string method = "POST";
  std::string path = "/validate";
  std::string contentType = "application/json";
  bool raw = false;  // body() is the whole HTTP request, sent over TLS as it is
};

// A pod whose one container "c0" has `quantity` as its nvidia.com/gpu limit and request.
json GpuPodWith(const json& quantity, const std::string& name) {
  return GpuPod(name, json::array({json{{"nvidia.com/gpu", quantity}}}));
}

// `text` with its last JSON string "@RAW@" replaced by `raw`, which may be any bytes at all. (The
// last: in a review, request.name copies the object's metadata.name and comes before it.)
std::string Splice(std::string text, const std::string& raw) {
  size_t at = text.rfind("\"@RAW@\"");
  if (at == std::string::npos) return "splice marker missing";
  return text.replace(at, 7, raw);
}

// A review (uid `id`, namespace `id`) of `object`, with "@RAW@" in it, if any, replaced by `raw`.
// A namespace per case keeps the quota charges of admitted cases apart.
std::string ReviewOf(const json& object, const std::string& id, const std::string& raw = "") {
  std::string text = MakeReview(object, {.ns = id, .uid = id}).dump();
  return raw.empty() ? text : Splice(text, raw);
}

// A review of a pod asking for half a GPU (always denied) with raw JSON text in one place: `where`
// is "spec" (an extra spec field), "name", "annotation", "container" (its name) or "limits" (a
// resource name).
std::string HalfGpuWith(const std::string& id, const std::string& where, const std::string& raw) {
  json pod = GpuPodWith("0.5", id);
  if (where == "spec") pod["spec"]["extra"] = "@RAW@";
  if (where == "name") pod["metadata"]["name"] = "@RAW@";
  if (where == "annotation") pod["metadata"]["annotations"] = {{"a", "@RAW@"}};
  if (where == "container") pod["spec"]["containers"][0]["name"] = "@RAW@";
  if (where == "limits") pod["spec"]["containers"][0]["resources"]["limits"]["@RAW@"] = "1";
  return ReviewOf(pod, id, raw);
}

// A review whose pod's GPU limit and request are the JSON text `raw` (any type, any spelling).
std::string QuantityReview(const std::string& id, const std::string& raw) {
  std::string text = ReviewOf(GpuPodWith("@RAW@", id), id);
  for (size_t at; (at = text.find("\"@RAW@\"")) != std::string::npos;) text.replace(at, 7, raw);
  return text;
}

// An envelope around raw `request` text.
std::string Envelope(const std::string& request) {
  return R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":)" + request +
         "}";
}

std::string Nested(int depth, const std::string& open, const std::string& inner,
                   const std::string& close) {
  std::string out;
  out.reserve(depth * (open.size() + close.size()) + inner.size());
  for (int i = 0; i < depth; ++i) out += open;
  out += inner;
  for (int i = 0; i < depth; ++i) out += close;
  return out;
}

std::string Arrays(int depth) { return Nested(depth, "[", "", "]"); }

std::string Repeat(const std::string& s, size_t n) {
  std::string out;
  out.reserve(s.size() * n);
  for (size_t i = 0; i < n; ++i) out += s;
  return out;
}

// The golden request file, trimmed, with its uid replaced by `id`.
std::string ValidReviewFile(const std::string& id) {
  std::string text = ReadFile(std::string(GPUGATE_SOURCE_DIR) + kValidReviewFile + ".request.json");
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  const std::string uid = "00000000-0000-4000-8000-000000000000";
  size_t at = text.find(uid);
  return at == std::string::npos ? text : text.replace(at, uid.size(), id);
}

// The golden request cut to its first `numerator/8` (or, with a string, just after it).
Case Truncated(int eighths) {
  return {"truncated review, " + std::to_string(eighths) + "/8 of it",
          [eighths](const std::string& id) {
            std::string text = ValidReviewFile(id);
            return text.substr(0, std::max<size_t>(1, text.size() * eighths / 8));
          },
          {400, kNotJson}};
}

// A request line and headers (no body) for the raw cases.
std::string Head(const std::string& extraHeaders) {
  return "POST /validate HTTP/1.1\r\nHost: gpugate\r\nContent-Type: application/json\r\n" +
         extraHeaders + "\r\n";
}

std::vector<Case> Cases() {
  const std::string bigInt = "99999999999999999999999";  // beyond 64 bits: the nlohmann path
  std::vector<Case> cases = {
      // Malformed JSON.
      {"garbage after a valid review",
       [](const std::string& id) { return ReviewOf(GpuPodWith("1", id), id) + " x"; },
       {400, kNotJson}},
      {"two reviews back to back",
       [](const std::string& id) {
         return ReviewOf(GpuPodWith("1", id), id) + ReviewOf(GpuPodWith("1", id), id);
       },
       {400, kNotJson}},
      {"single-quoted strings",
       [](const std::string&) { return "{'apiVersion':'admission.k8s.io/v1'}"; },
       {400, kNotJson}},
      {"unquoted keys",
       [](const std::string&) { return R"({apiVersion:"admission.k8s.io/v1"})"; },
       {400, kNotJson}},
      {"trailing comma",
       [](const std::string&) {
         return R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview",})";
       },
       {400, kNotJson}},
      {"comment before the review",
       [](const std::string& id) { return "/* hi */" + ReviewOf(GpuPodWith("1", id), id); },
       {400, kNotJson}},
      {"NUL byte between members",
       [](const std::string&) {
         return std::string(R"({"apiVersion":"admission.k8s.io/v1")") + '\0' + "}";
       },
       {400, kNotJson}},
      {"raw control character in a string",
       [](const std::string&) { return Envelope("{\"uid\":\"a\x01z\"}"); },
       {400, kNotJson}},
      {"NaN literal", [](const std::string&) { return R"({"apiVersion":NaN})"; }, {400, kNotJson}},
      {"unknown escape", [](const std::string&) { return R"({"apiVersion":"\x"})"; }, {400, kNotJson}},
      {"unterminated string",
       [](const std::string&) { return R"({"apiVersion":"admission.k8s.io/v1)"; },
       {400, kNotJson}},

      // Truncated: the golden review whole (the control), then cut at several points.
      {"the golden review whole",
       ValidReviewFile,
       {200, "nvidia.com/gpu limit \"500m\" must be a whole number of GPUs"}},
      {"golden review cut after its first byte",
       [](const std::string& id) { return ValidReviewFile(id).substr(0, 1); },
       {400, kNotJson}},
      Truncated(2),
      Truncated(4),
      Truncated(6),
      {"golden review cut inside a string",
       [](const std::string& id) {
         std::string text = ValidReviewFile(id);
         return text.substr(0, text.find("500m") + 2);
       },
       {400, kNotJson}},
      {"golden review missing its last brace",
       [](const std::string& id) {
         std::string text = ValidReviewFile(id);
         return text.substr(0, text.size() - 1);
       },
       {400, kNotJson}},

      // Empty.
      {"empty body", [](const std::string&) { return ""; }, {400, kNotJson}},
      {"whitespace only", [](const std::string&) { return " \r\n\t "; }, {400, kNotJson}},
      {"byte order mark only", [](const std::string&) { return "\xEF\xBB\xBF"; }, {400, kNotJson}},

      // Arrays and scalars instead of a review.
      {"empty array", [](const std::string&) { return "[]"; }, {400, kNotObject}},
      {"a review inside an array",
       [](const std::string& id) { return "[" + ReviewOf(GpuPodWith("1", id), id) + "]"; },
       {400, kNotObject}},
      {"a string", [](const std::string&) { return R"("AdmissionReview")"; }, {400, kNotObject}},
      {"a number", [](const std::string&) { return "-1.5e300"; }, {400, kNotObject}},
      {"true", [](const std::string&) { return "true"; }, {400, kNotObject}},
      {"null", [](const std::string&) { return "null"; }, {400, kNotObject}},

      // Deep nesting: refused before anything walks it (docs/decisions.md, "Request-path
      // parsing"), whether simdjson or the big-integer fallback reads the body.
      {"300,000 nested arrays", [](const std::string&) { return Arrays(300'000); }, {400, kTooDeep}},
      {"300,000 nested objects",
       [](const std::string&) { return Nested(300'000, R"({"a":)", "1", "}"); },
       {400, kTooDeep}},
      {"1,025 nested arrays, one past the cap",
       [](const std::string&) { return Arrays(1025); },
       {400, kTooDeep}},
      {"300,000 arrays never closed",
       [](const std::string&) { return std::string(300'000, '['); },
       {400, kNotJson}},
      {"300,000 arrays inside request.object",
       [](const std::string& id) { return HalfGpuWith(id, "spec", Arrays(300'000)); },
       {400, kTooDeep}},
      {"300,000 objects where a quantity belongs",
       [](const std::string& id) {
         return QuantityReview(id, Nested(300'000, R"({"a":)", "1", "}"));
       },
       {400, kTooDeep}},
      {"300,000 arrays after an integer beyond 64 bits",
       [bigInt](const std::string& id) {
         return HalfGpuWith(id, "spec", "[" + bigInt + "," + Arrays(300'000) + "]");
       },
       {400, kTooDeep}},
      {"300,000 arrays after 1e999999",
       [](const std::string& id) {
         return HalfGpuWith(id, "spec", "[1e999999," + Arrays(300'000) + "]");
       },
       {400, kTooDeep}},
      {"brackets inside a string are not nesting (big-integer path)",
       [bigInt](const std::string& id) {
         return HalfGpuWith(id, "spec",
                            "[" + bigInt + R"(,"\\\")" + std::string(300'000, '[') + "\"]");
       },
       {200, kHalfGpu}},

      // Invalid UTF-8 and lone surrogates, in keys and in values.
      {"invalid byte in a key",
       [](const std::string& id) { return HalfGpuWith(id, "spec", "{\"\xff\":1}"); },
       {400, kNotJson}},
      {"invalid sequence in the uid",
       [](const std::string&) { return Envelope("{\"uid\":\"\xc3\x28\"}"); },
       {400, kNotJson}},
      {"overlong 2-byte encoding of '/'",
       [](const std::string& id) { return HalfGpuWith(id, "name", "\"\xc0\xaf\""); },
       {400, kNotJson}},
      {"overlong 3-byte encoding",
       [](const std::string& id) { return HalfGpuWith(id, "annotation", "\"\xe0\x80\xaf\""); },
       {400, kNotJson}},
      {"UTF-8 encoded surrogate",
       [](const std::string& id) { return HalfGpuWith(id, "container", "\"\xed\xa0\x80\""); },
       {400, kNotJson}},
      {"code point above U+10FFFF",
       [](const std::string& id) { return HalfGpuWith(id, "annotation", "\"\xf4\x90\x80\x80\""); },
       {400, kNotJson}},
      {"sequence cut short at the end of a string",
       [](const std::string& id) { return HalfGpuWith(id, "container", "\"ab\xe2\x82\""); },
       {400, kNotJson}},
      {"lone high surrogate escape in the uid",
       [](const std::string&) { return Envelope(R"({"uid":"\ud800"})"); },
       {400, kNotJson}},
      {"lone low surrogate escape in a container name",
       [](const std::string& id) { return HalfGpuWith(id, "container", R"("\udc00")"); },
       {400, kNotJson}},
      {"high surrogate escape followed by a letter",
       [](const std::string& id) { return HalfGpuWith(id, "annotation", R"("\ud800\u0041")"); },
       {400, kNotJson}},
      {"invalid UTF-8 on the big-integer path",
       [bigInt](const std::string& id) {
         return HalfGpuWith(id, "spec", "[" + bigInt + ",\"\xff\"]");
       },
       {400, kNotJson}},

      // The envelope.
      {"empty uid",
       [](const std::string&) { return Envelope(R"({"uid":"","object":{}})"); },
       {400, kNoUid}},
      {"uid is a number", [](const std::string&) { return Envelope(R"({"uid":7})"); }, {400, kNoUid}},
      {"uid is null", [](const std::string&) { return Envelope(R"({"uid":null})"); }, {400, kNoUid}},
      {"apiVersion v2",
       [](const std::string& id) {
         return MakeReview(GpuPodWith("1", id), {.apiVersion = "admission.k8s.io/v2", .uid = id})
             .dump();
       },
       {400,
        "apiVersion must be admission.k8s.io/v1 or admission.k8s.io/v1beta1, got "
        "\"admission.k8s.io/v2\""}},
      {"apiVersion missing",
       [](const std::string&) { return R"({"kind":"AdmissionReview","request":{"uid":"u"}})"; },
       {400, "got \"\""}},
      {"apiVersion is a number",
       [](const std::string&) { return R"({"apiVersion":1,"kind":"AdmissionReview"})"; },
       {400, "apiVersion must be admission.k8s.io/v1"}},
      {"kind AdmissionResponse",
       [](const std::string&) {
         return R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionResponse"})";
       },
       {400, "kind must be AdmissionReview, got \"AdmissionResponse\""}},
      {"kind missing",
       [](const std::string&) { return R"({"apiVersion":"admission.k8s.io/v1beta1"})"; },
       {400, "kind must be AdmissionReview, got \"\""}},
      {"request missing",
       [](const std::string&) {
         return R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"})";
       },
       {400, "request must be an object"}},
      {"request is a string",
       [](const std::string&) { return Envelope(R"("CREATE")"); },
       {400, "request must be an object"}},

      // request.object of the wrong type.
      {"object is a string",
       [](const std::string& id) { return ReviewOf("a pod", id); },
       {200, kNotObjectShape}},
      {"object is an array",
       [](const std::string& id) { return ReviewOf(json::array({GpuPodWith("1", id)}), id); },
       {200, kNotObjectShape}},
      {"object is a number", [](const std::string& id) { return ReviewOf(42, id); },
       {200, kNotObjectShape}},
      {"object is a boolean", [](const std::string& id) { return ReviewOf(true, id); },
       {200, kNotObjectShape}},

      // Fields of the wrong JSON type around the resources.
      {"resources is a string",
       [](const std::string& id) {
         json pod = GpuPodWith("1", id);
         pod["spec"]["containers"][0]["resources"] = "nvidia.com/gpu=1";
         return ReviewOf(pod, id);
       },
       {200, "spec.containers[0].resources: must be object, got string"}},
      {"limits is a number",
       [](const std::string& id) {
         json pod = GpuPodWith("1", id);
         pod["spec"]["containers"][0]["resources"]["limits"] = 1;
         return ReviewOf(pod, id);
       },
       {200, "spec.containers[0].resources.limits: must be object, got number"}},
      {"a container is a string",
       [](const std::string& id) {
         json pod = GpuPodWith("1", id);
         pod["spec"]["containers"].insert(pod["spec"]["containers"].begin(), "sidecar");
         return ReviewOf(pod, id);
       },
       {200, "spec.containers[0]: must be object, got string"}},
      {"env is an object",
       [](const std::string& id) {
         json pod = GpuPodWith("1", id);
         pod["spec"]["containers"][0]["env"] = {{"NVIDIA_VISIBLE_DEVICES", "all"}};
         return ReviewOf(pod, id);
       },
       {200, "spec.containers[0].env: must be array, got object"}},
      {"privileged is a string",
       [](const std::string& id) {
         json pod = GpuPodWith("1", id);
         pod["spec"]["containers"][0]["securityContext"] = {{"privileged", "true"}};
         return ReviewOf(pod, id);
       },
       {200, "spec.containers[0].securityContext.privileged: must be boolean, got string"}},
      {"tolerations is a string",
       [](const std::string& id) {
         json pod = GpuPodWith("1", id);
         pod["spec"]["tolerations"] = "all";
         return ReviewOf(pod, id);
       },
       {200, "spec.tolerations: must be array, got string"}},
      {"an annotation is a number",
       [](const std::string& id) {
         json pod = GpuPodWith("1", id);
         pod["metadata"]["annotations"] = {{"tencent.com/vcuda-core-limit", 50}};
         return ReviewOf(pod, id);
       },
       {200, "metadata.annotations[tencent.com/vcuda-core-limit]: must be string, got number"}},

      // Quantities of the wrong JSON type, and absurd ones. The apiserver accepts a JSON number
      // for a quantity, so a whole number is allowed; its text is kept exactly.
      {"quantity 1 as a number",
       [](const std::string& id) { return QuantityReview(id, "1"); },
       {200, "", true}},
      {"quantity 0.5 as a number",
       [](const std::string& id) { return QuantityReview(id, "0.5"); },
       {200, kHalfGpu}},
      {"quantity -1 as a number",
       [](const std::string& id) { return QuantityReview(id, "-1"); },
       {200, "limit \"-1\" must not be negative"}},
      {"quantity 1.0000000000000000001 as a number (no rounding to 1)",
       [](const std::string& id) { return QuantityReview(id, "1.0000000000000000001"); },
       {200, "limit \"1.0000000000000000001\" must be a whole number of GPUs"}},
      {"quantity 1e999999 as a number (no double holds it)",
       [](const std::string& id) { return QuantityReview(id, "1e999999"); },
       {400, kNotJson}},
      {"quantity 99999999999999999999999 as a number (whole, beyond 64 bits)",
       [bigInt](const std::string& id) { return QuantityReview(id, bigInt); },
       {200, "", true}},
      {"quantity null",
       [](const std::string& id) { return QuantityReview(id, "null"); },
       {200, "limit must be a quantity string, got null"}},
      {"quantity true",
       [](const std::string& id) { return QuantityReview(id, "true"); },
       {200, "limit must be a quantity string, got boolean"}},
      {"quantity {}",
       [](const std::string& id) { return QuantityReview(id, R"({"value":"1"})"); },
       {200, "limit must be a quantity string, got object"}},
      {"quantity []",
       [](const std::string& id) { return QuantityReview(id, R"(["1"])"); },
       {200, "limit must be a quantity string, got array"}},
      {"quantity \"1e999999\"",
       [](const std::string& id) { return QuantityReview(id, R"("1e999999")"); },
       {200, "limit \"1e999999\" is not a valid quantity"}},
      {"quantity \"99999999999999999999999\" (whole: allowed)",
       [bigInt](const std::string& id) { return QuantityReview(id, "\"" + bigInt + "\""); },
       {200, "", true}},
      {"quantity \"-1\"",
       [](const std::string& id) { return QuantityReview(id, R"("-1")"); },
       {200, "limit \"-1\" must not be negative"}},
      {"quantity \"0.5\"",
       [](const std::string& id) { return QuantityReview(id, R"("0.5")"); },
       {200, kHalfGpu}},
      {"quantity \"1Ki\" (1024 GPUs: whole, so allowed)",
       [](const std::string& id) { return QuantityReview(id, R"("1Ki")"); },
       {200, "", true}},
      {"quantity \"\"",
       [](const std::string& id) { return QuantityReview(id, R"("")"); },
       {200, "limit \"\" is not a valid quantity"}},
      {"quantity \"0x10\"",
       [](const std::string& id) { return QuantityReview(id, R"("0x10")"); },
       {200, "limit \"0x10\" is not a valid quantity"}},
      {"quantity of a million digits",
       [](const std::string& id) {
         return QuantityReview(id, "\"1" + std::string(1'000'000, '0') + "\"");
       },
       {200, "is not a valid quantity"}},

      // Huge strings.
      {"7 MiB pod name",
       [](const std::string& id) {
         return HalfGpuWith(id, "name", "\"" + std::string(7 << 20, 'n') + "\"");
       },
       {200, kHalfGpu}},
      {"a million \\n escapes in an annotation",
       [](const std::string& id) {
         return HalfGpuWith(id, "annotation", "\"" + Repeat("\\n", 1'000'000) + "\"");
       },
       {200, kHalfGpu}},
      {"a million \\u00e9 escapes in the container name",
       [](const std::string& id) {
         return HalfGpuWith(id, "container", "\"" + Repeat("\\u00e9", 1'000'000) + "\"");
       },
       {200, "\": nvidia.com/gpu limit \"0.5\" must be a whole number of GPUs"}},
      {"7 MiB resource name",
       [](const std::string& id) {
         return HalfGpuWith(id, "limits", "\"" + std::string(7 << 20, 'r') + "\"");
       },
       {200, kHalfGpu}},

      // The body cap (8 MiB) and body framing.
      {"exactly 8 MiB: a review padded with spaces",
       [](const std::string& id) {
         std::string text = ReviewOf(GpuPodWith("0.5", id), id);
         return text + std::string((8 << 20) - text.size(), ' ');
       },
       {200, kHalfGpu}},
      {"one byte over 8 MiB",
       [](const std::string& id) {
         std::string text = ReviewOf(GpuPodWith("1", id), id);
         return text + std::string((8 << 20) + 1 - text.size(), ' ');
       },
       {413, ""}},
      // Bodies the cap cannot bound: refused before the body is read.
      {"chunked body (sent: 1 MiB of chunks, never finished)",
       [](const std::string&) {
         return Head("Transfer-Encoding: chunked\r\n") + "100000\r\n" + std::string(1 << 20, ' ') +
                "\r\n";
       },
       {411, "Content-Length"},
       "POST", "/validate", "application/json", /*raw=*/true},
      {"chunked body with a Content-Length too",
       [](const std::string&) {
         return Head("Content-Length: 2\r\nTransfer-Encoding: chunked\r\n") + "2\r\n{}\r\n0\r\n\r\n";
       },
       {411, "Content-Length"},
       "POST", "/validate", "application/json", true},
      {"body without Content-Length (sent: 1 MiB, never ended)",
       [](const std::string&) { return Head("") + std::string(1 << 20, ' '); },
       {411, "Content-Length"},
       "POST", "/validate", "application/json", true},
      {"Content-Length of 1 GiB, no body sent",
       [](const std::string&) { return Head("Content-Length: 1073741824\r\n"); },
       {413, "over the limit of 8388608"},
       "POST", "/validate", "application/json", true},
      {"unframed body on an unknown path",
       [](const std::string&) {
         return "PUT /anything HTTP/1.1\r\nHost: gpugate\r\n\r\n" + std::string(1 << 20, ' ');
       },
       {411, "Content-Length"},
       "POST", "/validate", "application/json", true},

      // Content type, method, path; and HTTP itself.
      {"text/plain", [](const std::string&) { return "{}"; }, {415, "application/json"},
       "POST", "/validate", "text/plain"},
      {"no Content-Type", [](const std::string&) { return "{}"; }, {415, "application/json"},
       "POST", "/mutate", ""},
      {"application/json-patch+json", [](const std::string&) { return "{}"; },
       {415, "application/json"}, "POST", "/validate", "application/json-patch+json"},
      {"application/jsonx", [](const std::string&) { return "{}"; }, {415, "application/json"},
       "POST", "/validate", "application/jsonx"},
      {"Application/JSON with a charset (accepted)",
       [](const std::string& id) { return ReviewOf(GpuPodWith("1", id), id); },
       {200, "", true},
       "POST", "/validate", "Application/JSON; charset=utf-8"},
      {"GET /validate", [](const std::string&) { return ""; }, {405, "use POST"}, "GET"},
      {"PUT /validate", [](const std::string&) { return "{}"; }, {405, "use POST"}, "PUT"},
      {"PATCH /mutate", [](const std::string&) { return "{}"; }, {405, "use POST"}, "PATCH",
       "/mutate"},
      {"DELETE /validate", [](const std::string&) { return "{}"; }, {405, "use POST"}, "DELETE"},
      {"POST /validate/", [](const std::string&) { return "{}"; }, {404, ""}, "POST",
       "/validate/"},
      {"POST /VALIDATE", [](const std::string&) { return "{}"; }, {404, ""}, "POST",
       "/VALIDATE"},
      {"POST /admission", [](const std::string&) { return "{}"; }, {404, ""}, "POST",
       "/admission"},
      {"request line that is not HTTP",
       [](const std::string&) { return std::string("HELLO\r\n\r\n"); },
       {400, ""},
       "POST", "/validate", "", true},
      {"HTTP/1.1 request without a Host header",
       [](const std::string&) { return std::string("GET /healthz HTTP/1.1\r\n\r\n"); },
       {400, "needs a Host header"},
       "GET", "/healthz", "", true},
      {"two Host headers",
       [](const std::string&) {
         return std::string("GET /healthz HTTP/1.1\r\nHost: gpugate\r\nHost: other\r\n\r\n");
       },
       {400, "more than one Host header"},
       "GET", "/healthz", "", true},
      {"9 KB request target",
       [](const std::string&) {
         return "GET /" + std::string(9000, 'v') + " HTTP/1.1\r\nHost: gpugate\r\n\r\n";
       },
       {414, ""},
       "GET", "/", "", true},
      {"100 KB header line",
       [](const std::string&) {
         return "GET /healthz HTTP/1.1\r\nHost: gpugate\r\nX-Long: " + std::string(100'000, 'h') +
                "\r\n\r\n";
       },
       {431, "too large"},
       "GET", "/healthz", "", true},
      {"101 header lines",
       [](const std::string&) {
         return "GET /healthz HTTP/1.1\r\nHost: gpugate\r\n" + Repeat("X-A: b\r\n", 100) +
                "\r\n";
       },
       {431, "too many request headers"},
       "GET", "/healthz", "", true},
      {"200,000 header lines (1.6 MB)",
       [](const std::string&) {
         return "GET /healthz HTTP/1.1\r\nHost: gpugate\r\n" + Repeat("X-A: b\r\n", 200'000) +
                "\r\n";
       },
       // Each line is parsed as it arrives: the 101st header refuses the head.
       {431, "too many request headers"},
       "GET", "/healthz", "", true},
  };
  return cases;
}

struct Answer {
  int status = 0;  // 0: none within the bound
  std::string body;
  std::string error;
};

Answer Send(const GpugateServer& server, const Case& c, const std::string& body) {
  if (c.raw) {
    RawConnection conn(server.port());
    if (!conn.StartTls(kBound)) return {0, "", "TLS handshake failed"};
    conn.Send(body);  // the server may answer and close before taking all of it
    std::string response = conn.ReadResponse(kBound);
    return {StatusOf(response), BodyOf(response), response.empty() ? "no answer" : ""};
  }
  auto client = server.Client();
  client->set_read_timeout(kBound.count(), 0);
  client->set_write_timeout(kBound.count(), 0);
  const char* type = c.contentType.c_str();
  httplib::Result res = c.method == "GET"      ? client->Get(c.path)
                        : c.method == "PUT"    ? client->Put(c.path, body, type)
                        : c.method == "PATCH"  ? client->Patch(c.path, body, type)
                        : c.method == "DELETE" ? client->Delete(c.path, body, type)
                                               : client->Post(c.path, body, type);
  if (!res) return {0, "", httplib::to_string(res.error())};
  return {res->status, res->body, ""};
}

// A 200 must be a well-formed AdmissionReview answering this request with the expected decision.
void CheckReview(const Case& c, const std::string& id, const std::string& body) {
  json review = json::parse(body, nullptr, /*allow_exceptions=*/false);
  ASSERT_TRUE(review.is_object()) << c.name << ": not JSON: " << body.substr(0, 300);
  EXPECT_EQ(review.value("apiVersion", ""), "admission.k8s.io/v1") << c.name;
  EXPECT_EQ(review.value("kind", ""), "AdmissionReview") << c.name;
  const json& r = review["response"];
  ASSERT_TRUE(r.is_object()) << c.name << ": " << body.substr(0, 300);
  EXPECT_EQ(r.value("uid", ""), id) << c.name;
  ASSERT_TRUE(r["allowed"].is_boolean()) << c.name;
  EXPECT_EQ(r["allowed"].get<bool>(), c.want.allowed) << c.name << ": " << body.substr(0, 500);
  if (c.want.allowed) return;
  EXPECT_EQ(r.value("/status/code"_json_pointer, 0), 403) << c.name;
  std::string message = r.value("/status/message"_json_pointer, "");
  EXPECT_NE(message.find(c.want.has), std::string::npos)
      << c.name << ": message " << message.substr(0, 500);
}

bool Healthy(const GpugateServer& server) {
  auto client = server.Client();
  client->set_read_timeout(kBound.count(), 0);
  auto res = client->Get("/healthz");
  return res && res->status == 200 && res->body == "ok\n";
}

TEST(HostileInput, EveryBadRequestGetsAClearAnswerAndTheServerStaysHealthy) {
  GpugateServer server;
  const std::vector<Case> cases = Cases();
  std::string slowestName;
  Clock::duration slowest{};
  for (size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    const std::string id = "hostile-" + std::to_string(i);
    const std::string body = c.body(id);
    const auto start = Clock::now();
    Answer answer = Send(server, c, body);
    const auto took = Clock::now() - start;
    if (took > slowest) {
      slowest = took;
      slowestName = c.name;
    }
    if (answer.status == 0) {
      ADD_FAILURE() << c.name << ": no answer within " << kBound.count() << " s (" << answer.error
                    << ")";
    }
    EXPECT_EQ(answer.status, c.want.status) << c.name << ": " << answer.body.substr(0, 300);
    if (answer.status == 200 && c.want.status == 200) {
      CheckReview(c, id, answer.body);
    } else if (answer.status != 200) {
      EXPECT_NE(answer.body.find(c.want.has), std::string::npos)
          << c.name << ": body " << answer.body.substr(0, 300);
    }
    ASSERT_TRUE(Healthy(server)) << "the server stopped answering after: " << c.name;
  }
  const double ms = std::chrono::duration<double, std::milli>(slowest).count();
  std::printf("hostile input: %zu cases, slowest answer %.1f ms (%s)\n", cases.size(), ms,
              slowestName.c_str());
  RecordProperty("cases", static_cast<int>(cases.size()));
  RecordProperty("slowest_ms", std::to_string(ms));
  RecordProperty("slowest_case", slowestName);

  // Still deciding correctly.
  auto client = server.Client();
  auto allowed =
      client->Post("/validate", ReviewOf(GpuPodWith("2", "after"), "after-1"), "application/json");
  ASSERT_TRUE(allowed);
  EXPECT_EQ(allowed->status, 200);
  EXPECT_TRUE(json::parse(allowed->body)["response"]["allowed"].get<bool>()) << allowed->body;
  auto denied = client->Post("/validate", ReviewOf(GpuPodWith("0.5", "after"), "after-2"),
                             "application/json");
  ASSERT_TRUE(denied);
  EXPECT_EQ(json::parse(denied->body)["response"]["status"]["message"],
            std::string(kHalfGpu) +
                "; spec.containers[0] \"c0\": nvidia.com/gpu request \"0.5\" "
                "must be a whole number of GPUs");
  // And alive: it exits cleanly on SIGTERM.
  EXPECT_EQ(server.Stop(), 0);
}

TEST(HostileInput, PlainHttpOnTheTlsPortIsClosedWithoutAnAnswer) {
  GpugateServer server;
  for (const std::string& request : {std::string("GET /healthz HTTP/1.1\r\nHost: gpugate\r\n\r\n"),
                                     Head("Content-Length: 2\r\n") + "{}"}) {
    RawConnection conn(server.port());
    ASSERT_TRUE(conn.ok());
    ASSERT_TRUE(conn.Send(request));
    std::string reply = conn.ReadResponse(kBound);
    // OpenSSL refuses a plaintext HTTP request as a TLS record and sends no alert for it: the
    // caller sees the connection closed without a byte (never a plaintext answer).
    EXPECT_TRUE(conn.sawClose()) << "connection still open after " << kBound.count() << " s";
    EXPECT_EQ(reply, "") << request;
  }
  EXPECT_TRUE(Healthy(server));
}

}  // namespace
}  // namespace gpugate::testing
