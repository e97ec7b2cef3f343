#include "review/pod_spec_finder.h"

#include "review/pod_spec_walker.h"

namespace gpugate::review {

// The walk is compiled here, once per view; pod_spec_walker.h declares both extern.
template policy::ObjectView WalkPodSpecs(const NlohmannView&, NlohmannView::Value);
template policy::ObjectView WalkPodSpecs(const SimdjsonView&, SimdjsonView::Value);

policy::ObjectView FindPodSpecs(const nlohmann::json& object) {
  return WalkPodSpecs(NlohmannView(), &object);
}

std::string JsonPointerEscape(std::string_view key) {
  std::string out;
  out.reserve(key.size());
  for (char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

}  // namespace gpugate::review
