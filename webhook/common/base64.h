#pragma once

#include <string>
#include <string_view>

#include "common/result.h"

namespace gpugate {

// Standard base64 (RFC 4648 section 4) with padding and no line breaks, as the
// AdmissionReview `patch` field and webhook `caBundle` expect.
std::string Base64Encode(std::string_view data);
// The same appended to `out`, growing it once.
void AppendBase64(std::string& out, std::string_view data);

// The inverse of Base64Encode, for kubeconfig `*-data` fields and Secret data. ASCII whitespace
// (line breaks in a folded YAML scalar) is skipped; padding is required, as Go's StdEncoding
// requires it. The error names the offending character and its offset.
Result<std::string> Base64Decode(std::string_view text);

}  // namespace gpugate
