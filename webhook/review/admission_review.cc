#include "review/admission_review.h"

#include <nlohmann/json.hpp>

#include "common/base64.h"
#include "common/strings.h"
#include "review/pod_spec_finder.h"

namespace gpugate::review {
namespace {

using nlohmann::json;

constexpr std::string_view kV1 = "admission.k8s.io/v1";
constexpr std::string_view kV1beta1 = "admission.k8s.io/v1beta1";

// A string member, or "" when absent or not a string (callers check what they require).
std::string StringAt(const json& obj, const char* key) {
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : std::string();
}

Result<void> CheckEnvelope(const json& doc) {
  if (!doc.is_object()) return Fail("request body must be a JSON object (an AdmissionReview)");
  std::string apiVersion = StringAt(doc, "apiVersion");
  if (apiVersion != kV1 && apiVersion != kV1beta1) {
    return Fail("apiVersion must be admission.k8s.io/v1 or admission.k8s.io/v1beta1, got " +
                JsonQuote(apiVersion));
  }
  if (StringAt(doc, "kind") != "AdmissionReview") {
    return Fail("kind must be AdmissionReview, got " + JsonQuote(StringAt(doc, "kind")));
  }
  auto req = doc.find("request");
  if (req == doc.end() || !req->is_object()) return Fail("request must be an object");
  auto uid = req->find("uid");
  if (uid == req->end() || !uid->is_string() || uid->get_ref<const std::string&>().empty()) {
    return Fail("request.uid must be a non-empty string");
  }
  return {};
}

ObjectMeta MetaOf(const json& object) {
  ObjectMeta meta;
  auto m = object.find("metadata");
  if (m == object.end() || !m->is_object()) return meta;
  meta.name = StringAt(*m, "name");
  meta.uid = StringAt(*m, "uid");
  auto d = m->find("deletionTimestamp");
  meta.deleting = d != m->end() && !d->is_null();
  return meta;
}

}  // namespace

Result<AdmissionRequest> DecodeReview(std::string_view body) {
  json doc = json::parse(body.begin(), body.end(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return Fail("request body is not valid JSON");
  if (auto ok = CheckEnvelope(doc); !ok) return std::unexpected(ok.error());

  const json& req = doc["request"];
  AdmissionRequest out;
  out.apiVersion = StringAt(doc, "apiVersion");
  out.uid = StringAt(req, "uid");
  if (auto k = req.find("kind"); k != req.end() && k->is_object()) {
    out.kind = {StringAt(*k, "group"), StringAt(*k, "version"), StringAt(*k, "kind")};
  }
  if (auto r = req.find("resource"); r != req.end() && r->is_object()) {
    out.resource = StringAt(*r, "resource");
  }
  out.subResource = StringAt(req, "subResource");
  out.name = StringAt(req, "name");
  out.ns = StringAt(req, "namespace");
  out.operation = StringAt(req, "operation");
  if (auto d = req.find("dryRun"); d != req.end() && d->is_boolean()) out.dryRun = d->get<bool>();
  if (auto o = req.find("object"); o != req.end() && !o->is_null()) {
    out.hasObject = true;
    if (!o->is_object()) {
      out.object.shapeErrors.push_back({"request.object", "must be object"});
    } else {
      out.object = FindPodSpecs(*o);
      out.objectMeta = MetaOf(*o);
      if (auto st = o->find("status"); st != o->end() && st->is_object()) {
        out.phase = StringAt(*st, "phase");
      }
      if (out.ns.empty()) {
        if (auto m = o->find("metadata"); m != o->end() && m->is_object()) {
          out.ns = StringAt(*m, "namespace");
        }
      }
    }
  }
  if (auto o = req.find("oldObject"); o != req.end() && o->is_object()) {
    out.oldObjectMeta = MetaOf(*o);
  }
  return out;
}

std::string EncodeResponse(const AdmissionRequest& request, const Decision& decision) {
  std::string out;
  out.reserve(256 + decision.message.size() + decision.patch.size() * 4 / 3);
  out += R"({"apiVersion":)";
  AppendJsonString(out, request.apiVersion.empty() ? kV1 : request.apiVersion);
  out += R"(,"kind":"AdmissionReview","response":{"uid":)";
  AppendJsonString(out, request.uid);
  out += decision.allowed ? R"(,"allowed":true)" : R"(,"allowed":false)";
  if (!decision.allowed) {
    out += R"(,"status":{"metadata":{},"status":"Failure","reason":"Forbidden","code":)";
    out += std::to_string(decision.code);
    out += R"(,"message":)";
    AppendJsonString(out, decision.message);
    out += '}';
  }
  if (!decision.patch.empty()) {
    out += R"(,"patchType":"JSONPatch","patch":")";
    out += Base64Encode(decision.patch);
    out += '"';
  }
  if (!decision.warnings.empty()) {
    out += R"(,"warnings":[)";
    for (size_t i = 0; i < decision.warnings.size(); ++i) {
      if (i) out += ',';
      AppendJsonString(out, decision.warnings[i]);
    }
    out += ']';
  }
  out += "}}";
  return out;
}

}  // namespace gpugate::review
