#include "quota/report.h"

#include <charconv>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>

#include "common/strings.h"
#include "policy/flavor.h"

namespace gpugate::quota {
namespace {

using nlohmann::json;

// A JSON number's decimal text, so ParseMilli decides exactly what is a valid amount. Floats
// use the shortest fixed notation that reads back as the same double: 1.25 -> "1.25".
std::string NumberText(const json& value) {
  if (value.is_number_unsigned()) return std::to_string(value.get<uint64_t>());
  if (value.is_number_integer()) return std::to_string(value.get<int64_t>());
  char buf[400];  // a double's fixed notation needs at most 309 integer digits plus fraction
  double d = value.get<double>();
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::fixed);
  return ec == std::errc() ? std::string(buf, end) : "?";
}

Result<int64_t> AmountAt(const json& parent, const char* key, const std::string& path) {
  auto it = parent.find(key);
  if (it == parent.end()) return Fail(path + "." + key + ": missing");
  if (!it->is_number()) return Fail(path + "." + key + ": want a number, got " + it->type_name());
  auto milli = ParseMilli(NumberText(*it));
  if (!milli) return Fail(path + "." + key + ": " + milli.error().message);
  return milli;
}

Result<ResourceUsage> ParseResource(const json& value, const std::string& path) {
  if (!value.is_object()) return Fail(path + ": want an object");
  ResourceUsage usage;
  auto used = AmountAt(value, "used", path);
  if (!used) return std::unexpected(used.error());
  usage.used = *used;
  if (value.contains("hard")) {
    auto hard = AmountAt(value, "hard", path);
    if (!hard) return std::unexpected(hard.error());
    usage.hard = *hard;
  }
  return usage;
}

// Reads {resource: {used, hard}} into `out`, each name passed through `key` (the flavor's
// spelling for "flavors").
Status ParseResources(const json& resources, const std::string& path,
                      const std::function<std::string(const std::string&)>& key,
                      NamespaceUsage& out) {
  for (const auto& [name, resource] : resources.items()) {
    auto parsed = ParseResource(resource, path + "[" + JsonQuote(name) + "]");
    if (!parsed) return std::unexpected(parsed.error());
    out.resources.emplace(key(name), *parsed);
  }
  return {};
}

Result<NamespaceUsage> ParseNamespace(const json& value, const std::string& path) {
  if (!value.is_object()) return Fail(path + ": want an object");
  auto ns = value.find("namespace");
  if (ns == value.end() || !ns->is_string()) return Fail(path + ".namespace: want a string");
  auto resources = value.find("resources");
  if (resources == value.end() || !resources->is_object()) {
    return Fail(path + ".resources: want an object");
  }
  NamespaceUsage out{.ns = ns->get<std::string>()};
  auto plain = [](const std::string& name) { return name; };
  if (auto st = ParseResources(*resources, path + ".resources", plain, out); !st) {
    return std::unexpected(st.error());
  }
  auto flavors = value.find("flavors");
  if (flavors == value.end()) return out;
  if (!flavors->is_object()) return Fail(path + ".flavors: want an object");
  for (const auto& [flavor, list] : flavors->items()) {
    std::string at = path + ".flavors[" + JsonQuote(flavor) + "]";
    if (!list.is_object()) return Fail(at + ": want an object");
    auto flavored = [&](const std::string& name) { return policy::FlavoredName(name, flavor); };
    if (auto st = ParseResources(list, at, flavored, out); !st) return std::unexpected(st.error());
  }
  return out;
}

}  // namespace

std::string UsageJson(const std::vector<NamespaceUsage>& usage) {
  auto entry = [](std::string& out, std::string_view name, const ResourceUsage& r) {
    AppendJsonString(out, name);
    out += R"(:{"used":)" + FormatMilli(r.used);
    if (r.hard) out += R"(,"hard":)" + FormatMilli(*r.hard);
    out += '}';
  };
  std::string out = R"({"namespaces":[)";
  for (size_t i = 0; i < usage.size(); ++i) {
    if (i > 0) out += ',';
    out += R"({"namespace":)";
    AppendJsonString(out, usage[i].ns);
    out += R"(,"resources":{)";
    std::map<std::string, std::string, std::less<>> flavors;  // flavor -> its entries
    bool first = true;
    for (const auto& [name, r] : usage[i].resources) {
      if (auto flavored = policy::SplitFlavored(name)) {
        std::string& list = flavors[std::string(flavored->second)];
        if (!list.empty()) list += ',';
        entry(list, flavored->first, r);
        continue;
      }
      if (!first) out += ',';
      first = false;
      entry(out, name, r);
    }
    out += '}';
    if (!flavors.empty()) {
      out += R"(,"flavors":{)";
      first = true;
      for (const auto& [flavor, list] : flavors) {
        if (!first) out += ',';
        first = false;
        AppendJsonString(out, flavor);
        out += ":{" + list + "}";
      }
      out += '}';
    }
    out += '}';
  }
  return out + "]}";
}

Result<std::vector<NamespaceUsage>> ParseUsageJson(std::string_view text) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    // e.what() is "[json.exception.parse_error.101] parse error at line 1, column 2: ...".
    std::string what = e.what();
    if (size_t bracket = what.find("] "); bracket != std::string::npos) what.erase(0, bracket + 2);
    return Fail("not valid JSON: " + what);
  }
  if (!doc.is_object()) return Fail("want a JSON object with \"namespaces\"");
  auto list = doc.find("namespaces");
  if (list == doc.end() || !list->is_array()) return Fail("namespaces: want an array");
  std::vector<NamespaceUsage> out;
  for (size_t i = 0; i < list->size(); ++i) {
    auto ns = ParseNamespace((*list)[i], "namespaces[" + std::to_string(i) + "]");
    if (!ns) return std::unexpected(ns.error());
    out.push_back(std::move(*ns));
  }
  return out;
}

std::string UsagePrometheus(const std::vector<NamespaceUsage>& usage) {
  std::string used =
      "# HELP gpugate_quota_used Amount of a GPU resource or weighted figure charged to a "
      "namespace by admitted pods.\n"
      "# TYPE gpugate_quota_used gauge\n";
  std::string hard =
      "# HELP gpugate_quota_hard Hard limit on a GPU resource or weighted figure for a namespace, "
      "where one is configured.\n"
      "# TYPE gpugate_quota_hard gauge\n";
  std::string flavorUsed, flavorHard;
  for (const NamespaceUsage& ns : usage) {
    for (const auto& [name, r] : ns.resources) {
      auto flavored = policy::SplitFlavored(name);
      std::string labels = "{namespace=\"" + PrometheusLabelValue(ns.ns) + "\",resource=\"" +
                           PrometheusLabelValue(flavored ? flavored->first : name) + "\"";
      if (flavored) {
        labels += ",flavor=\"" + PrometheusLabelValue(flavored->second) + "\"} ";
        flavorUsed += "gpugate_quota_flavor_used" + labels + FormatMilli(r.used) + "\n";
        if (r.hard)
          flavorHard += "gpugate_quota_flavor_hard" + labels + FormatMilli(*r.hard) + "\n";
        continue;
      }
      labels += "} ";
      used += "gpugate_quota_used" + labels + FormatMilli(r.used) + "\n";
      if (r.hard) hard += "gpugate_quota_hard" + labels + FormatMilli(*r.hard) + "\n";
    }
  }
  if (flavorUsed.empty() && flavorHard.empty()) return used + hard;
  return used + hard +
         "# HELP gpugate_quota_flavor_used Amount of a GPU resource or weighted figure charged to "
         "a namespace by admitted pods that may run on a GPU flavor (model).\n"
         "# TYPE gpugate_quota_flavor_used gauge\n" +
         flavorUsed +
         "# HELP gpugate_quota_flavor_hard Hard limit on a GPU resource or weighted figure per GPU "
         "flavor (model) for a namespace, where one is configured.\n"
         "# TYPE gpugate_quota_flavor_hard gauge\n" +
         flavorHard;
}

}  // namespace gpugate::quota
