#include "review/pod_spec_finder.h"

#include "review/pod_spec_walker.h"

namespace gpugate::review {

// The walk is compiled here, once per view; pod_spec_walker.h declares both extern.
template policy::ObjectView WalkPodSpecs(const NlohmannView&, NlohmannView::Value,
                                         policy::TextArena&, const std::shared_ptr<const void>&);
template policy::ObjectView WalkPodSpecs(const SimdjsonView&, SimdjsonView::Value,
                                         policy::TextArena&, const std::shared_ptr<const void>&);

policy::ObjectView FindPodSpecs(const nlohmann::json& object) {
  auto texts = std::make_shared<policy::TextArena>();
  return WalkPodSpecs(NlohmannView(), &object, *texts, texts);
}

policy::ObjectView FindPodSpecs(nlohmann::json&& object) {
  auto owned = std::make_shared<OwnedNlohmannDocument>(std::move(object));
  return WalkPodSpecs(NlohmannView(), &owned->json, owned->texts, owned);
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
