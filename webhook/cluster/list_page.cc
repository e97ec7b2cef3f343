#include "cluster/list_page.h"

#include "cluster/kube_object.h"

namespace gpugate::cluster {

using nlohmann::json;

Result<ListPageMeta> DecodeListPage(std::string_view body,
                                    const std::function<void(json item)>& onItem) {
  // nlohmann's parser callback sees every value as it completes; depths count from the list
  // object (0): its keys and their values are at depth 1, the items at depth 2. An item's value
  // is moved out and the callback answers false, so the parser drops what is left of it.
  std::string topKey;    // the list's key being parsed
  bool inItems = false;  // inside the top-level `items` array
  auto callback = [&](int depth, json::parse_event_t event, json& parsed) {
    using Event = json::parse_event_t;
    if (depth == 1 && event == Event::key) topKey = parsed.get<std::string>();
    if (depth == 1 && event == Event::array_start) inItems = topKey == "items";
    if (depth == 1 && event == Event::array_end) inItems = false;
    bool itemDone =
        event == Event::object_end || event == Event::array_end || event == Event::value;
    if (depth == 2 && inItems && itemDone) {
      onItem(std::move(parsed));
      return false;
    }
    return true;
  };
  json list = json::parse(body, callback, /*allow_exceptions=*/false);
  if (list.is_discarded()) return Fail("the answer is not valid JSON");
  auto items = list.is_object() ? list.find("items") : list.end();
  if (items == list.end() || !(items->is_array() || items->is_null())) {
    return Fail("the answer is not a Kubernetes list");
  }
  return ListPageMeta{.resourceVersion = StringAt(list, {"metadata", "resourceVersion"}),
                      .continueToken = StringAt(list, {"metadata", "continue"})};
}

}  // namespace gpugate::cluster
