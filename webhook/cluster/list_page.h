// One page of a Kubernetes list (GET .../pods?limit=500), decoded without keeping it: each item
// is handed over as soon as it is parsed and dropped from the document, so decoding a page holds
// the page's text and one item at a time, whatever the page's size.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "common/result.h"

namespace gpugate::cluster {

// What a page says about the list beyond its items (ListMeta).
struct ListPageMeta {
  std::string resourceVersion;  // metadata.resourceVersion: the list's, the same on every page
  std::string continueToken;    // metadata.continue: empty on the last page
};

// Calls `onItem` for every element of `items`, in order, each moved out of the document as it is
// parsed. An error when the body is not a JSON object with an `items` array (or null): not a
// Kubernetes list. Items handed over before a syntax error further on stay handed over; the
// caller drops the whole list. Exceptions from `onItem` propagate.
Result<ListPageMeta> DecodeListPage(std::string_view body,
                                    const std::function<void(nlohmann::json item)>& onItem);

}  // namespace gpugate::cluster
