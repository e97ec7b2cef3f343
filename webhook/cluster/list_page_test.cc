#include "cluster/list_page.h"

#include <gtest/gtest.h>

namespace gpugate::cluster {
namespace {

using nlohmann::json;

TEST(DecodeListPage, HandsOverEachItemInOrderAndReadsTheListMeta) {
  struct Case {
    std::string name, body;
    std::vector<std::string> items;  // each item as dumped
    std::string resourceVersion, continueToken, error;
  } cases[] = {
      {"a page with more to come",
       R"({"kind":"PodList","metadata":{"resourceVersion":"42","continue":"tok=="},)"
       R"("items":[{"metadata":{"name":"a","labels":{"x":"y"}}},{"metadata":{"name":"b"}}]})",
       {R"({"metadata":{"labels":{"x":"y"},"name":"a"}})", R"({"metadata":{"name":"b"}})"},
       "42",
       "tok==",
       ""},
      {"the last page: items before metadata, no continue",
       R"({"items":[{"spec":{"containers":[{"name":"c"}]}}],"metadata":{"resourceVersion":"7"}})",
       {R"({"spec":{"containers":[{"name":"c"}]}})"},
       "7",
       "",
       ""},
      {"nested arrays in items stay whole",
       R"({"items":[{"a":[[1,2],[3]]},[4,5],"odd"],"metadata":{}})",
       {R"({"a":[[1,2],[3]]})", "[4,5]", R"("odd")"},
       "",
       "",
       ""},
      {"other arrays at the top are not items",
       R"({"warnings":[{"w":1}],"items":[],"metadata":{"resourceVersion":"3"}})",
       {},
       "3",
       "",
       ""},
      {"items: null is an empty list", R"({"items":null})", {}, "", "", ""},
      {"metadata of the wrong type is ignored",
       R"({"items":[],"metadata":{"resourceVersion":5,"continue":null}})",
       {},
       "",
       "",
       ""},
      {"a Status object is not a list",
       R"({"kind":"Status","code":500,"message":"boom"})",
       {},
       "",
       "",
       "the answer is not a Kubernetes list"},
      {"items of the wrong type",
       R"({"items":{"a":1}})",
       {},
       "",
       "",
       "the answer is not a Kubernetes list"},
      {"not an object", R"([{"items":[]}])", {}, "", "", "the answer is not a Kubernetes list"},
      {"cut off mid-item",
       R"({"items":[{"a":1},{"b":)",
       {R"({"a":1})"},
       "",
       "",
       "the answer is not valid JSON"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> items;
    auto meta = DecodeListPage(c.body, [&](json item) { items.push_back(item.dump()); });
    EXPECT_EQ(items, c.items) << c.name;
    if (!c.error.empty()) {
      ASSERT_FALSE(meta) << c.name;
      EXPECT_EQ(meta.error().message, c.error) << c.name;
      continue;
    }
    ASSERT_TRUE(meta) << c.name << ": " << meta.error().message;
    EXPECT_EQ(meta->resourceVersion, c.resourceVersion) << c.name;
    EXPECT_EQ(meta->continueToken, c.continueToken) << c.name;
  }
}

TEST(DecodeListPage, AnExceptionFromTheItemHandlerPropagates) {
  EXPECT_THROW(DecodeListPage(R"({"items":[{}]})", [](json) { throw std::runtime_error("no"); }),
               std::runtime_error);
}

}  // namespace
}  // namespace gpugate::cluster
