#pragma once

#include <string>
#include <string_view>

namespace gpugate {

// Standard base64 (RFC 4648 section 4) with padding and no line breaks, as the
// AdmissionReview `patch` field and webhook `caBundle` expect.
std::string Base64Encode(std::string_view data);

}  // namespace gpugate
