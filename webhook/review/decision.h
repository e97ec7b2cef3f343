// An admission decision as a value, made by named constructors. EncodeResponse turns it into the
// response review; the transport reads `reason` for metrics and logs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gpugate::review {

struct Decision {
  bool allowed = true;
  int32_t code = 200;   // status.code when denied
  std::string reason;   // short machine word for metrics and logs: a rule name, "exempt", ...
  std::string message;  // status.message when denied
  std::string patch;    // a JSON Patch document (JSON text); empty: no patch
  std::vector<std::string> warnings;
};

inline Decision Allowed(std::string reason) { return Decision{.reason = std::move(reason)}; }

inline Decision Denied(std::string reason, std::string message) {
  return Decision{
      .allowed = false, .code = 403, .reason = std::move(reason), .message = std::move(message)};
}

// Refused because gpugate could not decide (the ledger unavailable, no time left): `code` is a
// 5xx, so the API server reports an error rather than a policy refusal.
inline Decision Errored(int32_t code, std::string reason, std::string message) {
  return Decision{
      .allowed = false, .code = code, .reason = std::move(reason), .message = std::move(message)};
}

inline Decision Patched(std::string reason, std::string patch) {
  return Decision{.reason = std::move(reason), .patch = std::move(patch)};
}

}  // namespace gpugate::review
