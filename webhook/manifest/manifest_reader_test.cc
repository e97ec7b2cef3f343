#include "manifest/manifest_reader.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace gpugate::manifest {
namespace {

// One line per object, "LINE KIND/NAME", or the error as "error FILE:LINE: message".
std::vector<std::string> Read(const std::string& text) {
  auto objects = ParseManifests(text, "in.yaml");
  if (!objects) {
    const ManifestError& e = objects.error();
    return {"error " + e.at.file + ":" + std::to_string(e.at.line) + ": " + e.message};
  }
  std::vector<std::string> out;
  for (const ManifestObject& o : *objects) {
    EXPECT_EQ(o.at.file, "in.yaml");
    out.push_back(std::to_string(o.at.line) + " " + o.object.value("kind", "?") + "/" +
                  o.object.value("/metadata/name"_json_pointer, "?"));
  }
  return out;
}

using Lines = std::vector<std::string>;

TEST(ParseManifests, ObjectsWithTheLineTheirContentStartsOn) {
  const struct {
    std::string name;
    std::string text;
    Lines want;
  } cases[] = {
      {"one document", "kind: Pod\nmetadata: {name: a}\n", {"1 Pod/a"}},
      {"documents, comments and empty documents as helm template writes them",
       "---\n"
       "# Source: chart/templates/a.yaml\n"
       "kind: Pod\n"
       "metadata:\n"
       "  name: a\n"
       "---\n"
       "# Source: chart/templates/empty.yaml\n"
       "---\n"
       "\n"
       "kind: Job\n"
       "metadata: {name: b}\n"
       "...\n",
       {"3 Pod/a", "10 Job/b"}},
      {"a List's items",
       "kind: List\nitems:\n- kind: Pod\n  metadata: {name: a}\n-\n  kind: Job\n",
       {"3 Pod/a", "6 Job/?"}},
      {"a typed list's items get its kind",
       "kind: PodList\nitems:\n- metadata: {name: a}\n",
       {"3 Pod/a"}},
      {"Lists in Lists",
       "kind: List\nitems:\n- kind: List\n  items:\n  - kind: Pod\n",
       {"5 Pod/?"}},
      {"an empty List", "kind: List\nitems: []\n", {}},
      {"a kind ending in List without items is an object",
       "kind: AllowList\nspec: {}\n",
       {"1 AllowList/?"}},
      {"a JSON List",
       "{\"kind\": \"List\", \"items\": [\n  {\"kind\": \"Pod\"},\n  {\"kind\": \"Job\"}\n]}\n",
       {"2 Pod/?", "3 Job/?"}},
      {"nothing", "", {}},
      {"only comments", "# nothing here\n---\n", {}},
      {"a syntax error",
       "kind: Pod\nmetadata:\n  name: [a\n",
       {"error in.yaml:4: invalid YAML: end of sequence flow not found"}},
      {"a bad indentation",
       "kind: Pod\n metadata: {}\n",
       {"error in.yaml:2: invalid YAML: illegal map value"}},
      {"a document that is a list",
       "kind: Pod\n---\n- a\n",
       {"error in.yaml:3: a Kubernetes object must be a map, got a list"}},
      {"a List item that is a string",
       "kind: List\nitems:\n- kind: Pod\n- x\n",
       {"error in.yaml:4: a Kubernetes object must be a map, got a string"}},
      {"a value JSON cannot hold",
       "kind: Pod\nspec:\n  x: .inf\n",
       {"error in.yaml:3: \".inf\" is not a number JSON can hold"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(Read(c.text), c.want);
  }
}

TEST(ParseManifests, DeepNestingIsAnErrorNamingTheLine) {
  const std::string text = "kind: Pod\nspec: " + std::string(100000, '[') + "\n";
  const Lines got = Read(text);
  ASSERT_EQ(got.size(), 1u);
  // yaml-cpp places the mark where its scanner was when the parser gave up.
  EXPECT_TRUE(got[0].starts_with("error in.yaml:")) << got[0];
  EXPECT_TRUE(got[0].ends_with(": invalid YAML: nested 500 levels deep, more than yaml-cpp reads"))
      << got[0];
}

TEST(ParseManifests, QuotedAndPlainQuantitiesReachTheObjectAsKubectlSendsThem) {
  auto objects = ParseManifests(
      "kind: Pod\nspec:\n  containers:\n  - resources:\n      limits: {a/gpu: 1, b/gpu: \"1\", "
      "c/gpu: 0.5, d/gpu: 1.0}\n",
      "-");
  ASSERT_TRUE(objects) << objects.error().message;
  ASSERT_EQ(objects->size(), 1u);
  EXPECT_EQ((*objects)[0].object["spec"]["containers"][0]["resources"]["limits"].dump(),
            R"({"a/gpu":1,"b/gpu":"1","c/gpu":0.5,"d/gpu":1})");
}

}  // namespace
}  // namespace gpugate::manifest
