// Fuzzes the pod-spec finder (review/pod_spec_walker.h): the one walk, run over both JSON views
// (simdjson's DOM, as on the request path, and nlohmann-json, as for watched pods), must give the
// same views and shape errors for the same text. Every pod spec found must be where its pointer
// says, an object with a "containers" list, and hold one view per container object.
#include <simdjson.h>

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "fuzz/fuzz_check.h"
#include "review/json_view.h"
#include "review/pod_spec_finder.h"
#include "review/pod_spec_walker.h"
#include "review/raw_json.h"

using namespace gpugate;

namespace {

size_t ContainerObjects(const nlohmann::json& spec) {
  size_t n = 0;
  for (const char* list : {"initContainers", "containers", "ephemeralContainers"}) {
    auto it = spec.find(list);
    if (it == spec.end() || !it->is_array()) continue;
    for (const auto& c : *it) n += c.is_object();
  }
  return n;
}

const nlohmann::json* At(const nlohmann::json& doc, const std::string& pointer) {
  try {
    const nlohmann::json::json_pointer p(pointer);
    return doc.contains(p) ? &doc.at(p) : nullptr;
  } catch (const nlohmann::json::exception&) {
    return nullptr;
  }
}

void CheckPlacement(const nlohmann::json& doc, const policy::ObjectView& found) {
  for (const policy::PodSpecView& pod : found.podSpecs) {
    const nlohmann::json* spec = At(doc, pod.pointer);
    FUZZ_CHECK(spec && spec->is_object() && spec->contains("containers"), pod.pointer);
    FUZZ_CHECK(pod.containers.size() == ContainerObjects(*spec), pod.pointer);
    if (!pod.metadataPointer.empty()) {
      const nlohmann::json* meta = At(doc, pod.metadataPointer);
      FUZZ_CHECK(meta && meta->is_object(), pod.metadataPointer);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  // Both parsers must accept the text; where they disagree on that (nesting past simdjson's
  // limit, integers beyond 64 bits, NUL bytes) there is nothing to compare.
  static simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (parser.parse(text.data(), text.size(), /*realloc_if_needed=*/true).get(root)) return 0;
  const nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return 0;

  const review::RawJsonFinder simdRaw(text, "");
  const review::RawJsonFinder nlohmannRaw(text, "");
  // The views borrow from `parser` and `doc`, which outlive them; `texts` holds the numbers' text.
  policy::TextArena texts;
  const policy::ObjectView bySimdjson =
      review::WalkPodSpecs(review::SimdjsonView(&simdRaw), root, texts, nullptr);
  const policy::ObjectView byNlohmann =
      review::WalkPodSpecs(review::NlohmannView(&nlohmannRaw), &doc, texts, nullptr);
  const std::string rendered = fuzz::Render(bySimdjson);
  FUZZ_CHECK(rendered == fuzz::Render(byNlohmann),
             "simdjson:\n" + rendered + "\nnlohmann:\n" + fuzz::Render(byNlohmann));
  CheckPlacement(doc, byNlohmann);

  // The public front end (no literal number text) finds the same pod specs in the same places.
  const policy::ObjectView public_view = review::FindPodSpecs(doc);
  FUZZ_CHECK(public_view.podSpecs.size() == byNlohmann.podSpecs.size(), rendered);
  for (size_t i = 0; i < public_view.podSpecs.size(); ++i) {
    FUZZ_CHECK(public_view.podSpecs[i].pointer == byNlohmann.podSpecs[i].pointer, rendered);
  }
  return 0;
}
