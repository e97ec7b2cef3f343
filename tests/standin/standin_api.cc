// The API's vocabulary for the stand-in: request paths, Status objects, watch event lines.
#include <array>
#include <utility>

#include "standin/standin_store.h"

namespace gpugate::testing::standin {

using nlohmann::json;

std::string ApiPath::apiVersion() const {
  return prefix.starts_with("apis/") ? prefix.substr(5) : "v1";
}

std::string ApiPath::groupResource() const {
  if (!prefix.starts_with("apis/")) return resource;
  std::string groupVersion = prefix.substr(5);
  return resource + "." + groupVersion.substr(0, groupVersion.find('/'));
}

std::optional<ApiPath> ParseApiPath(std::string_view path) {
  std::vector<std::string> parts;
  if (!path.starts_with('/')) return std::nullopt;
  path.remove_prefix(1);
  while (!path.empty()) {
    size_t slash = path.find('/');
    std::string_view part = path.substr(0, slash);
    if (part.empty()) return std::nullopt;
    parts.emplace_back(part);
    path = slash == std::string_view::npos ? std::string_view() : path.substr(slash + 1);
  }
  ApiPath out;
  size_t first;  // index of the first part after the group-version
  if (parts.size() >= 2 && parts[0] == "api" && parts[1] == "v1") {
    out.prefix = "api/v1";
    first = 2;
  } else if (parts.size() >= 3 && parts[0] == "apis") {
    out.prefix = "apis/" + parts[1] + "/" + parts[2];
    first = 3;
  } else {
    return std::nullopt;
  }
  std::vector<std::string> rest(parts.begin() + first, parts.end());
  // A leading "namespaces/NS" with more after it scopes the path; "namespaces/NS" alone is the
  // Namespace object NS.
  if (rest.size() >= 3 && rest[0] == "namespaces") {
    out.ns = rest[1];
    rest.erase(rest.begin(), rest.begin() + 2);
  }
  if (rest.empty() || rest.size() > 2) return std::nullopt;  // discovery or a subresource
  out.resource = rest[0];
  if (rest.size() == 2) out.name = rest[1];
  return out;
}

json StatusFor(const ApiError& error) {
  json status = {{"kind", "Status"},    {"apiVersion", "v1"},       {"metadata", json::object()},
                 {"status", "Failure"}, {"message", error.message}, {"reason", error.reason},
                 {"code", error.code}};
  if (!error.details.is_null()) status["details"] = error.details;
  return status;
}

ApiError ErrorAbout(const ApiPath& path, int code, std::string reason, std::string message) {
  json details = {{"name", path.name}, {"kind", path.resource}};
  if (path.prefix.starts_with("apis/")) {
    std::string groupVersion = path.apiVersion();
    details["group"] = groupVersion.substr(0, groupVersion.find('/'));
  }
  return {code, std::move(reason), std::move(message), std::move(details)};
}

ApiError NotFoundError(const ApiPath& path) {
  return ErrorAbout(path, 404, "NotFound",
                    path.groupResource() + " \"" + path.name + "\" not found");
}

std::string EventLine(std::string_view type, const json& object) {
  return json{{"type", type}, {"object", object}}.dump() + "\n";
}

std::string EventLineOf(std::string_view type, std::string_view objectText) {
  std::string line = R"({"type":)" + json(type).dump() + R"(,"object":)";
  line += objectText;
  line += "}\n";
  return line;
}

ApiError ContinueExpiredError() {
  return {410,
          "Expired",
          "The provided continue parameter is too old to display a consistent list result. You "
          "can start a new list without the continue parameter.",
          {}};
}

}  // namespace gpugate::testing::standin
