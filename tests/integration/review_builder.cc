#include "review_builder.h"

namespace gpugate::testing {

using nlohmann::json;

json MakeReview(const json& object, const ReviewOptions& o) {
  return {{"apiVersion", o.apiVersion},
          {"kind", "AdmissionReview"},
          {"request",
           {{"uid", o.uid},
            {"kind", {{"group", o.group}, {"version", o.version}, {"kind", o.kind}}},
            {"resource", {{"group", o.group}, {"version", o.version}, {"resource", o.resource}}},
            {"name", object.is_object() ? object.value("/metadata/name"_json_pointer, "") : ""},
            {"namespace", o.ns},
            {"operation", o.operation},
            {"userInfo", {{"username", "alice"}}},
            {"object", object},
            {"oldObject", nullptr},
            {"dryRun", false}}}};
}

json GpuPod(const std::string& name, const json& limits) {
  json containers = json::array();
  int i = 0;
  for (const auto& l : limits) {
    containers.push_back({{"name", "c" + std::to_string(i++)},
                          {"image", "cuda:12"},
                          {"resources", {{"limits", l}, {"requests", l}}}});
  }
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}, {"namespace", "team-a"}}},
          {"spec", {{"containers", containers}, {"schedulerName", "default-scheduler"}}}};
}

std::string Base64Decode(const std::string& in) {
  static const std::string kAlphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  int bits = 0, acc = 0;
  for (char c : in) {
    if (c == '=') break;
    auto pos = kAlphabet.find(c);
    if (pos == std::string::npos) return "";
    acc = (acc << 6) | static_cast<int>(pos);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xFF));
    }
  }
  return out;
}

json DecodedPatch(const json& review) {
  const json& r = review.at("response");
  if (!r.contains("patch")) return nullptr;
  return json::parse(Base64Decode(r.at("patch").get<std::string>()));
}

}  // namespace gpugate::testing
