#include "usage/accruals.h"

#include <set>
#include <string>

namespace gpugate::usage {

std::vector<Accrual> Accruals(std::string_view ns, const quota::Amounts& charge, Span held) {
  std::set<std::string, std::less<>> flavors;
  for (const auto& [name, milli] : charge) {
    size_t at = name.rfind('@');
    if (at != std::string::npos && milli > 0) flavors.insert(name.substr(at + 1));
  }
  std::string model = flavors.size() == 1 ? *flavors.begin() : "";
  std::vector<Accrual> out;
  for (const auto& [name, milli] : charge) {
    if (name.find('@') != std::string::npos || milli <= 0) continue;
    out.push_back({.key = {std::string(ns), name, model}, .milli = milli, .held = held});
  }
  return out;
}

}  // namespace gpugate::usage
