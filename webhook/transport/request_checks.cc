#include "transport/request_checks.h"

#include <cctype>

namespace gpugate::transport {
namespace {

std::string_view TrimSpace(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool EqualsIgnoringCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

}  // namespace

std::optional<Refusal> CheckBodyFraming(std::string_view method, bool hasContentLength,
                                        bool hasTransferEncoding) {
  constexpr std::string_view kWhy = "a request body needs a Content-Length";
  if (hasTransferEncoding) {
    return Refusal{411, std::string(kWhy) + "; Transfer-Encoding is not accepted\n"};
  }
  // The methods whose body cpp-httplib reads until the connection closes when it has no length.
  const bool readsBody =
      method == "POST" || method == "PUT" || method == "PATCH" || method == "PRI";
  if (readsBody && !hasContentLength) return Refusal{411, std::string(kWhy) + "\n"};
  return std::nullopt;
}

bool IsJsonMediaType(std::string_view contentType) {
  std::string_view type = contentType.substr(0, contentType.find(';'));
  return EqualsIgnoringCase(TrimSpace(type), "application/json");
}

}  // namespace gpugate::transport
