// Errors as values across layer boundaries. Library exceptions are caught at the boundary
// that called the library and turned into an Error; nothing on the request path throws.
#pragma once

#include <expected>
#include <string>
#include <utility>

namespace gpugate {

struct Error {
  std::string message;
};

template <typename T>
using Result = std::expected<T, Error>;

// A Result that carries no value: `Status ok = {};`, `return Fail("...")`.
using Status = std::expected<void, Error>;

inline std::unexpected<Error> Fail(std::string message) {
  return std::unexpected<Error>(Error{std::move(message)});
}

}  // namespace gpugate
