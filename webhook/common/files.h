// Reading small files whole (credentials, certificates), with the reason when that fails.
#pragma once

#include <string>

#include "common/result.h"

namespace gpugate {

// The file's contents, or "cannot read <path>: <strerror>" (a directory counts as unreadable).
Result<std::string> ReadFile(const std::string& path);

}  // namespace gpugate
