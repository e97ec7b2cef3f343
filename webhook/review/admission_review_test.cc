#include "review/admission_review.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/vector_pool.h"
#include "test_paths.h"

namespace gpugate::review {
namespace {

using nlohmann::json;

std::string ReadFixture(const std::string& name) {
  std::ifstream in(std::string(GPUGATE_FIXTURES_DIR) + "/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Standard base64 with padding, as the apiserver decodes response.patch. "<invalid>" otherwise.
std::string Base64Decode(const std::string& in) {
  static const std::string kAlphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  if (in.size() % 4 != 0) return "<invalid>";
  std::string out;
  for (size_t i = 0; i < in.size(); i += 4) {
    uint32_t n = 0;
    int pad = 0;
    for (size_t j = 0; j < 4; ++j) {
      char c = in[i + j];
      size_t v = 0;
      if (c == '=' && i + 4 == in.size() && j >= 2) {
        ++pad;
      } else if (pad || (v = kAlphabet.find(c)) == std::string::npos) {
        return "<invalid>";
      }
      n = n << 6 | uint32_t(v);
    }
    out += char(n >> 16);
    if (pad < 2) out += char(n >> 8 & 0xFF);
    if (pad < 1) out += char(n & 0xFF);
  }
  return out;
}

// A minimal review around `request` (JSON text of the request object's members).
std::string Review(const std::string& request,
                   const std::string& apiVersion = "admission.k8s.io/v1") {
  return R"({"apiVersion":")" + apiVersion + R"(","kind":"AdmissionReview","request":{)" + request +
         "}}";
}

std::string Nested(size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

// An object under review holding `depth` nested arrays; the review itself adds three levels.
std::string ReviewNesting(size_t depth, const std::string& before = "") {
  return Review(R"("uid":"u","object":{)" + before + R"("x":)" + Nested(depth) + "}");
}

const std::string kTooDeep =
    "request body nests too deeply (more than 1024 levels of arrays and objects)";

TEST(DecodeReview, Errors) {
  struct Case {
    std::string name;
    std::string body;
    std::string message;
  } cases[] = {
      {"empty body", "", "request body is not valid JSON"},
      {"not JSON", "apiVersion: admission.k8s.io/v1", "request body is not valid JSON"},
      {"truncated JSON", R"({"apiVersion":"admission.k8s.io/v1")",
       "request body is not valid JSON"},
      {"trailing garbage", Review(R"("uid":"u")") + "x", "request body is not valid JSON"},
      {"an array", R"([{"apiVersion":"admission.k8s.io/v1"}])",
       "request body must be a JSON object (an AdmissionReview)"},
      {"a string", R"("AdmissionReview")",
       "request body must be a JSON object (an AdmissionReview)"},
      {"wrong apiVersion", Review(R"("uid":"u")", "admission.k8s.io/v2"),
       R"(apiVersion must be admission.k8s.io/v1 or admission.k8s.io/v1beta1, got "admission.k8s.io/v2")"},
      {"missing apiVersion", R"({"kind":"AdmissionReview","request":{"uid":"u"}})",
       R"(apiVersion must be admission.k8s.io/v1 or admission.k8s.io/v1beta1, got "")"},
      {"wrong kind", R"({"apiVersion":"admission.k8s.io/v1","kind":"Pod","request":{"uid":"u"}})",
       R"(kind must be AdmissionReview, got "Pod")"},
      {"missing kind", R"({"apiVersion":"admission.k8s.io/v1","request":{"uid":"u"}})",
       R"(kind must be AdmissionReview, got "")"},
      {"missing request", R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"})",
       "request must be an object"},
      {"null request",
       R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":null})",
       "request must be an object"},
      {"array request",
       R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":[]})",
       "request must be an object"},
      {"missing uid", Review(R"("operation":"CREATE")"), "request.uid must be a non-empty string"},
      {"empty uid", Review(R"("uid":"")"), "request.uid must be a non-empty string"},
      {"numeric uid", Review(R"("uid":42)"), "request.uid must be a non-empty string"},
      {"null uid", Review(R"("uid":null)"), "request.uid must be a non-empty string"},
      {"invalid UTF-8 in a string", Review("\"uid\":\"u\",\"name\":\"\xff\""),
       "request body is not valid JSON"},
      {"invalid UTF-8 in a key", Review("\"uid\":\"u\",\"\xc0\xaf\":1"),
       "request body is not valid JSON"},
      {"an overlong UTF-8 encoding", Review("\"uid\":\"u\",\"name\":\"\xe0\x80\xaf\""),
       "request body is not valid JSON"},
      {"a lone surrogate escape", Review(R"("uid":"u","name":"\ud800")"),
       "request body is not valid JSON"},
      {"an unescaped control character", Review("\"uid\":\"u\",\"name\":\"a\tb\""),
       "request body is not valid JSON"},
      // nlohmann stopped reading at a NUL, so this used to parse.
      {"a NUL after the review", Review(R"("uid":"u")") + std::string(1, '\0') + "junk",
       "request body is not valid JSON"},
      // nlohmann skips a byte order mark, so with the one gpugate skips this used to parse.
      {"two byte order marks", "\xEF\xBB\xBF\xEF\xBB\xBF" + Review(R"("uid":"u")"),
       "request body is not valid JSON"},
      {"a number beyond a double", Review(R"("uid":"u","x":1e400)"),
       "request body is not valid JSON"},
      {"a malformed number", Review(R"("uid":"u","x":01)"), "request body is not valid JSON"},
      {"nested too deeply", ReviewNesting(1022), kTooDeep},
      // simdjson stops at the big integer first; the fallback checks the nesting itself.
      {"nested too deeply after a big integer",
       ReviewNesting(1022, R"("big":100000000000000000000,)"), kTooDeep},
      {"nested too deeply after a big integer, closing brackets in a string",
       ReviewNesting(1022, R"("big":100000000000000000000,"s":"]]]]\"}}}}\\",)"), kTooDeep},
      {"far too deep", ReviewNesting(100000), kTooDeep},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto got = DecodeReview(c.body);
    ASSERT_FALSE(got.has_value());
    EXPECT_EQ(got.error().message, c.message);
    // The nlohmann decode gives the same answers, except that it does not limit nesting.
    if (c.message == kTooDeep) continue;
    auto baseline = DecodeReviewWithNlohmann(c.body);
    ASSERT_FALSE(baseline.has_value());
    EXPECT_EQ(baseline.error().message, c.message);
  }
}

TEST(DecodeReview, NestingUpToTheLimit) {
  for (const std::string& prefix :
       {std::string(), std::string(R"("big":100000000000000000000,"s":"[[[[\"{{{{\\",)")}) {
    SCOPED_TRACE(prefix);
    auto got = DecodeReview(ReviewNesting(1021, prefix));  // 1,024 levels in all
    ASSERT_TRUE(got.has_value()) << got.error().message;
    EXPECT_TRUE(got->hasObject);
    EXPECT_TRUE(got->object.podSpecs.empty());
  }
}

TEST(DecodeReview, ByteOrderMarkIsSkipped) {
  for (auto decode : {&DecodeReview, &DecodeReviewWithNlohmann}) {
    auto got = decode("\xEF\xBB\xBF" + Review(R"("uid":"u")"));
    ASSERT_TRUE(got.has_value()) << got.error().message;
    EXPECT_EQ(got->uid, "u");
  }
}

TEST(DecodeReview, KubernetesFixtures) {
  struct Case {
    std::string file;
    std::string apiVersion;
  } cases[] = {
      {"admission.k8s.io.v1.AdmissionReview.json", "admission.k8s.io/v1"},
      {"admission.k8s.io.v1beta1.AdmissionReview.json", "admission.k8s.io/v1beta1"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.file);
    auto got = DecodeReview(ReadFixture(c.file));
    ASSERT_TRUE(got.has_value()) << got.error().message;
    EXPECT_EQ(got->apiVersion, c.apiVersion);
    EXPECT_EQ(got->uid, "uidValue");
    EXPECT_EQ(got->kind.group, "groupValue");
    EXPECT_EQ(got->kind.version, "versionValue");
    EXPECT_EQ(got->kind.kind, "kindValue");
    EXPECT_FALSE(got->IsPod());
    EXPECT_EQ(got->resource, "resourceValue");
    EXPECT_EQ(got->subResource, "subResourceValue");
    EXPECT_EQ(got->name, "nameValue");
    EXPECT_EQ(got->ns, "namespaceValue");
    EXPECT_EQ(got->operation, "operationValue");
    EXPECT_TRUE(got->dryRun);
    // request.object is a placeholder RawExtension ({"apiVersion":"example.com/v1",
    // "kind":"CustomType","spec":{"replicas":1},...}): present, with no pod spec in it.
    EXPECT_TRUE(got->hasObject);
    EXPECT_TRUE(got->object.podSpecs.empty());
    EXPECT_TRUE(got->object.shapeErrors.empty());
  }
}

TEST(DecodeReview, RequestFields) {
  struct Case {
    std::string name;
    std::string request;  // members of request
    std::string ns;
    bool dryRun;
    bool hasObject;
    size_t podSpecs;
    std::vector<std::string> shapeErrors = {};
  } cases[] = {
      {"namespace from the request", R"("uid":"u","namespace":"team-a",
        "object":{"metadata":{"namespace":"team-b"},"spec":{"containers":[{"name":"a"}]}})",
       "team-a", false, true, 1},
      {"namespace falls back to object.metadata.namespace", R"("uid":"u",
        "object":{"metadata":{"namespace":"team-b"},"spec":{"containers":[{"name":"a"}]}})",
       "team-b", false, true, 1},
      {"empty request namespace falls back too", R"("uid":"u","namespace":"",
        "object":{"metadata":{"namespace":"team-b"}})",
       "team-b", false, true, 0},
      {"no namespace anywhere", R"("uid":"u","object":{"spec":{}})", "", false, true, 0},
      {"dryRun true", R"("uid":"u","dryRun":true)", "", true, false, 0},
      {"dryRun false", R"("uid":"u","dryRun":false)", "", false, false, 0},
      {"dryRun as a string is not a dry run", R"("uid":"u","dryRun":"true")", "", false, false, 0},
      {"a null object (DELETE) is no object", R"("uid":"u","operation":"DELETE","object":null)", "",
       false, false, 0},
      {"an object that is not an object",
       R"("uid":"u","object":"pod")",
       "",
       false,
       true,
       0,
       {"request.object: must be object"}},
      {"shape errors in the object are carried, not refused",
       R"("uid":"u","object":{"spec":{"containers":[{"name":"a","env":"X=1"}]}})",
       "",
       false,
       true,
       1,
       {"spec.containers[0].env: must be array, got string"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto got = DecodeReview(Review(c.request));
    ASSERT_TRUE(got.has_value()) << got.error().message;
    EXPECT_EQ(got->uid, "u");
    EXPECT_EQ(got->ns, c.ns);
    EXPECT_EQ(got->dryRun, c.dryRun);
    EXPECT_EQ(got->hasObject, c.hasObject);
    EXPECT_EQ(got->object.podSpecs.size(), c.podSpecs);
    std::vector<std::string> errors;
    for (const auto& e : got->object.shapeErrors) errors.push_back(e.path + ": " + e.problem);
    EXPECT_EQ(errors, c.shapeErrors);
  }
}

TEST(DecodeReview, PodKind) {
  auto got = DecodeReview(Review(
      R"("uid":"u","kind":{"group":"","version":"v1","kind":"Pod"},"resource":{"group":"",
         "version":"v1","resource":"pods"},"subResource":"status","operation":"UPDATE")"));
  ASSERT_TRUE(got.has_value());
  EXPECT_TRUE(got->IsPod());
  EXPECT_EQ(got->resource, "pods");
  EXPECT_EQ(got->subResource, "status");
  EXPECT_EQ(got->operation, "UPDATE");
  EXPECT_FALSE(got->hasObject);
}

// Everything DecodeReview hands the handler, as text, to compare two decodes.
std::string Render(const std::optional<int64_t>& v) { return v ? std::to_string(*v) : "-"; }
std::string Render(const std::optional<WallClock::time_point>& t) {
  return t ? FormatRfc3339(*t) : "-";
}

// "node=gpu-node-1 tgps=30 phase=Running start=... deletion=-+-": a pod's lifecycle fields.
std::string Render(const PodLifecycle& p) {
  return "node=" + p.nodeName + " tgps=" + Render(p.terminationGracePeriodSeconds) +
         " phase=" + p.phase + " start=" + Render(p.startTime) +
         " deletion=" + Render(p.deletionTimestamp) + "+" + Render(p.deletionGracePeriodSeconds);
}

// Every field of every pod spec view, one line per spec and container.
void RenderViews(std::ostringstream& out, const policy::ObjectView& view) {
  for (const auto& e : view.shapeErrors) out << "error " << e.path << ": " << e.problem << "\n";
  for (const auto& pod : view.podSpecs) {
    out << "pod " << pod.path << " " << pod.pointer << " " << pod.metadataPath << " "
        << pod.metadataPointer << " scheduler=" << pod.hasSchedulerName << pod.schedulerName
        << " node=" << pod.nodeName << " tolerations=" << pod.hasTolerations;
    for (const auto& t : pod.tolerations)
      out << " {" << t.key << t.op << t.value << t.effect << "}";
    out << " overhead=[";
    for (const auto& q : pod.overhead) out << q.name << "=" << q.value.text << ",";
    out << "] nodeSelector=" << pod.hasNodeSelector;
    for (const auto& [k, v] : pod.nodeSelector) out << " " << k << "=" << v;
    out << " affinity=" << pod.hasRequiredNodeAffinity << "/" << pod.requiredNodeTerms.size();
    out << " annotations=" << pod.hasAnnotations;
    for (const auto& [k, v] : pod.annotations) out << " " << k << "=" << v;
    out << "\n";
    for (const auto& c : pod.containers) {
      out << "  " << pod.ContainerLabel(c) << " privileged=" << c.privileged
          << " restart=" << c.restartPolicy;
      for (const auto* list : {&c.limits, &c.requests}) {
        out << " [";
        for (const auto& q : *list)
          out << q.name << "=" << q.value.text << q.value.wrongType << ",";
        out << "]";
      }
      for (const auto& e : c.env) out << " " << e.name << "=" << e.value << e.fromSource;
      out << "\n";
    }
  }
}

std::string Render(const AdmissionRequest& r) {
  std::ostringstream out;
  out << r.apiVersion << "|" << r.uid << "|" << r.kind.group << "/" << r.kind.version << "/"
      << r.kind.kind << "|" << r.resource << "/" << r.subResource << "|" << r.ns << "/" << r.name
      << "|" << r.operation << "|" << r.dryRun << r.hasObject << "|" << r.objectMeta.name << "/"
      << r.objectMeta.uid << "/" << r.objectMeta.deleting << "|" << r.oldObjectMeta.name << "/"
      << r.oldObjectMeta.uid << "/" << r.oldObjectMeta.deleting << "|" << r.phase << "\n";
  out << "lifecycle old=" << Render(r.oldPod) << " pod=" << Render(r.pod)
      << " grace=" << Render(r.gracePeriodSeconds) << "\n";
  RenderViews(out, r.object);
  out << "old " << r.hasOldObject << " same=" << r.samePodSpecs << "\n";
  RenderViews(out, r.oldObject);
  return out.str();
}

// Every golden AdmissionReview request of the validate and mutate tables, as its text.
std::vector<std::string> GoldenRequests() {
  namespace fs = std::filesystem;
  std::vector<std::string> bodies;
  for (const char* route : {"validate", "mutate"}) {
    for (const auto& entry :
         fs::directory_iterator(fs::path(GPUGATE_SOURCE_DIR) / "tests/testdata" / route)) {
      if (!entry.path().string().ends_with(".request.json")) continue;
      std::ifstream in(entry.path());
      bodies.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
  }
  return bodies;
}

// The simdjson decode and the nlohmann one (the old path, now the fallback) must read every
// golden request and every Kubernetes fixture alike.
TEST(DecodeReview, AgreesWithTheNlohmannDecode) {
  namespace fs = std::filesystem;
  std::vector<std::string> bodies = GoldenRequests();
  for (const auto& entry : fs::directory_iterator(GPUGATE_FIXTURES_DIR)) {
    if (entry.path().extension() != ".json") continue;
    std::string object = ReadFixture(entry.path().filename().string());
    bodies.push_back(Review(R"("uid":"u","operation":"UPDATE","object":)" + object +
                            R"(,"oldObject":)" + object));
  }
  ASSERT_GT(bodies.size(), 40u);
  for (const auto& body : bodies) {
    SCOPED_TRACE(body.substr(0, 300));
    auto got = DecodeReview(body);
    auto baseline = DecodeReviewWithNlohmann(body);
    ASSERT_TRUE(got.has_value()) << got.error().message;
    ASSERT_TRUE(baseline.has_value()) << baseline.error().message;
    EXPECT_EQ(Render(*got), Render(*baseline));
  }
}

// A body parsed where it lies (the transport's read-ahead past it) decodes exactly as one copied
// first, whatever the bytes past its end hold: a number, a string, a structure or garbage there
// must neither extend the body's last token nor complete a truncated one.
TEST(DecodeReview, ParsedInPlaceAsIfCopied) {
  std::vector<std::string> bodies = {
      "",
      "1",
      "12",
      "-1.5e",
      "true",
      "tru",
      "nul",
      R"("abc)",
      R"("abc\)",
      "[",
      "{",
      "{}",
      R"({"a":1)",
      R"({"a":12)",
      R"({"a":"b)",
      Review(R"("uid":"u")"),
      Review(R"("uid":"u")") + " ",
      Review(R"("uid":"u")") + "x",
      Review(R"("uid":"u","object":{"spec":{"containers":[{"name":"c","resources":{"limits":)"
             R"({"nvidia.com/gpu":1}}}]}})"),
      "\xEF\xBB\xBF" + Review(R"("uid":"u")"),
      ReviewNesting(1024),
      ReviewNesting(1025),
  };
  for (std::string& body : GoldenRequests()) bodies.push_back(std::move(body));
  const std::string afterwards[] = {std::string(kReadAheadNeeded, '7'),
                                    std::string(kReadAheadNeeded, '"'),
                                    std::string(kReadAheadNeeded, '}'),
                                    std::string(kReadAheadNeeded, '\\'),
                                    std::string(kReadAheadNeeded, '\0'),
                                    std::string(kReadAheadNeeded, '\xFF'),
                                    "e5\",\"x\":[1]}]}" + std::string(kReadAheadNeeded, ' ')};
  auto render = [](const Result<AdmissionRequest>& r) {
    return r ? Render(*r) : "error: " + r.error().message;
  };
  for (const std::string& body : bodies) {
    const std::string copied = render(DecodeReview(body));
    for (const std::string& after : afterwards) {
      SCOPED_TRACE(body.substr(0, 120) + " | then " + after.substr(0, 12));
      // The body and exactly the promised read-ahead, in one allocation of their size.
      const std::string buffer = body + after.substr(0, kReadAheadNeeded);
      EXPECT_EQ(render(DecodeReviewInPlace(std::string_view(buffer).substr(0, body.size()),
                                           kReadAheadNeeded)),
                copied);
    }
  }
}

// A thread builds each request's views from the lists of the requests it recycled before
// (Recycle): whatever those held, every decode equals a decode on a fresh thread, which has none
// to reuse. Larger requests before smaller ones and the reverse, UPDATEs with their old objects,
// the rules' custom resources and templates: every golden request, in both orders.
TEST(DecodeReview, RecycledViewsDecodeAsNew) {
  const std::vector<std::string> bodies = GoldenRequests();
  std::vector<std::string> fresh(bodies.size());
  std::thread([&] {  // each decode on a thread of its own: nothing recycled to reuse
    for (size_t i = 0; i < bodies.size(); ++i) {
      std::thread([&, i] {
        auto r = DecodeReview(bodies[i]);
        fresh[i] = r ? Render(*r) : "error: " + r.error().message;
      }).join();
    }
  }).join();
  std::thread([&] {
    for (int pass = 0; pass < 2; ++pass) {
      for (size_t k = 0; k < bodies.size(); ++k) {
        const size_t i = pass == 0 ? k : bodies.size() - 1 - k;
        auto r = DecodeReview(bodies[i]);
        ASSERT_TRUE(r) << bodies[i].substr(0, 200);
        EXPECT_EQ(Render(*r), fresh[i]) << bodies[i].substr(0, 200);
        Recycle(*r);
        EXPECT_TRUE(r->object.podSpecs.empty() && r->oldObject.podSpecs.empty());
      }
    }
    // The lists really were kept for reuse on this thread.
    EXPECT_GT(VectorPool<policy::ContainerView>::KeptCount(), 0u);
    EXPECT_GT(VectorPool<policy::ResourceEntry>::KeptCount(), 0u);
  }).join();
}

// What a Pod's DELETE review says of the deletion, from the golden reviews of the three kinds.
TEST(DecodeReview, PodLifecycleOfADelete) {
  struct Case {
    const char* file;
    const char* want;  // Render(oldPod), then the DELETE's gracePeriodSeconds
  } cases[] = {
      {"graceful-delete-of-a-running-pod-allowed",
       "node=gpu-node-1 tgps=30 phase=Running start=2026-11-27T19:00:05.000Z deletion=-+- 60"},
      {"kubelet-final-delete-allowed",
       "node=gpu-node-1 tgps=30 phase=Running start=2026-11-27T19:00:05.000Z "
       "deletion=2026-11-27T20:01:00.000Z+60 0"},
      {"unscheduled-pod-delete-allowed", "node= tgps=30 phase=Pending start=- deletion=-+- -"},
  };
  for (const Case& c : cases) {
    std::ifstream in(std::string(GPUGATE_SOURCE_DIR) + "/tests/testdata/validate/deletion--" +
                     c.file + ".request.json");
    std::string body{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    auto r = DecodeReview(body);
    ASSERT_TRUE(r) << c.file << ": " << r.error().message;
    EXPECT_EQ(Render(r->oldPod) + " " + Render(r->gracePeriodSeconds), c.want) << c.file;
    EXPECT_EQ(Render(r->pod), "node= tgps=- phase= start=- deletion=-+-") << c.file;
  }
}

// A field of the wrong type reads as absent; a deletionTimestamp that is not a time still marks
// the pod as being deleted.
TEST(DecodeReview, PodLifecycleFieldsOfTheWrongTypeReadAsAbsent) {
  const std::string old =
      R"({"metadata":{"name":"p","deletionTimestamp":"yesterday","deletionGracePeriodSeconds":"30"},)"
      R"("spec":{"nodeName":7,"terminationGracePeriodSeconds":30.5},)"
      R"("status":{"phase":["Running"],"startTime":"2026-13-01T00:00:00Z"}})";
  for (const char* grace : {R"("60")", "60.5", "1e2", "99999999999999999999", "null", "true"}) {
    SCOPED_TRACE(grace);
    auto r = DecodeReview(Review(R"("uid":"u","kind":{"group":"","version":"v1","kind":"Pod"},)"
                                 R"("operation":"DELETE","object":null,"oldObject":)" +
                                 old + R"(,"options":{"gracePeriodSeconds":)" + grace + "}"));
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(Render(r->oldPod), "node= tgps=- phase= start=- deletion=-+-");
    EXPECT_TRUE(r->oldObjectMeta.deleting);
    EXPECT_EQ(r->gracePeriodSeconds, std::nullopt);
  }
}

// Bodies above kKeepParserUpTo get a parser of their own; the pooled ones carry on.
TEST(DecodeReview, LargeBodiesBetweenSmallOnes) {
  const std::string small =
      Review(R"("uid":"small","object":{"spec":{"containers":[{"name":"a"}]}})");
  const std::string large = Review(R"("uid":"large","object":{"metadata":{"annotations":{"big":")" +
                                   std::string(2 * kKeepParserUpTo, 'x') +
                                   R"("}},"spec":{"containers":[{"name":"b"}]}})");
  for (const std::string* body : {&small, &large, &small, &large}) {
    auto got = DecodeReview(*body);
    ASSERT_TRUE(got.has_value()) << got.error().message;
    ASSERT_EQ(got->object.podSpecs.size(), 1u);
    EXPECT_EQ(got->uid, body == &small ? "small" : "large");
    EXPECT_EQ(got->object.podSpecs[0].containers[0].name, body == &small ? "a" : "b");
  }
}

// The views borrow their strings from the parsed document. A view kept after its request is gone
// must still read its own values while later requests parse with the pool's parsers (which reuse
// their buffers), on every path: a pooled parser, a large body's own parser, the nlohmann
// fallback (an integer beyond 64 bits), and a quantity written as a number (printed text).
TEST(DecodeReview, AViewOutlivesItsRequest) {
  auto body = [](const std::string& tag, const std::string& extra) {
    return Review(R"("uid":"u-)" + tag + R"(","object":{"metadata":{"annotations":{"note":"kept-)" +
                  tag + R"("}},"spec":{"schedulerName":"sched-)" + tag +
                  R"(","tolerations":[{"key":"key-)" + tag +
                  R"(","operator":"Exists"}],"containers":[{"name":"container-)" + tag +
                  R"(","env":[{"name":"ENV_)" + tag + R"(","value":"value-)" + tag +
                  R"("}],"resources":{"limits":{"nvidia.com/gpu":2.5e0}}}]},"x":)" + extra + "}");
  };
  const struct {
    std::string tag;
    std::string extra;
  } cases[] = {
      {"pooled", "0"},
      {"large", "\"" + std::string(2 * kKeepParserUpTo, 'x') + "\""},
      {"fallback", "100000000000000000000"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.tag);
    policy::PodSpecView kept;
    {
      auto got = DecodeReview(body(c.tag, c.extra));
      ASSERT_TRUE(got.has_value()) << got.error().message;
      ASSERT_EQ(got->object.podSpecs.size(), 1u);
      kept = got->object.podSpecs[0];
    }
    // Other requests with other texts of the same length: a pooled parser keeps its buffers for a
    // body no longer than its last, so they overwrite the first request's strings in place.
    for (int i = 0; i < 20; ++i) {
      auto other = DecodeReview(body(std::string(c.tag.size(), static_cast<char>('a' + i)), "0"));
      ASSERT_TRUE(other.has_value());
    }
    ASSERT_EQ(kept.containers.size(), 1u);
    const policy::ContainerView& container = kept.containers[0];
    EXPECT_EQ(container.name, "container-" + c.tag);
    ASSERT_EQ(container.env.size(), 1u);
    EXPECT_EQ(container.env[0].name, "ENV_" + c.tag);
    EXPECT_EQ(container.env[0].value, "value-" + c.tag);
    ASSERT_EQ(container.limits.size(), 1u);
    EXPECT_EQ(container.limits[0].name, "nvidia.com/gpu");
    EXPECT_EQ(container.limits[0].value.text, "2.5e0");
    EXPECT_EQ(kept.schedulerName, "sched-" + c.tag);
    ASSERT_EQ(kept.tolerations.size(), 1u);
    EXPECT_EQ(kept.tolerations[0].key, "key-" + c.tag);
    EXPECT_EQ(kept.Annotation("note"), "kept-" + c.tag);
  }
}

// Concurrent decodes each borrow a parser of their own (simdjson's are not thread-safe).
TEST(DecodeReview, ConcurrentDecodes) {
  std::vector<std::thread> threads;
  std::vector<int> wrong(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([t, &wrong] {
      for (int i = 0; i < 300; ++i) {
        const std::string uid = std::to_string(t) + "-" + std::to_string(i);
        const std::string name(static_cast<size_t>(i % 50) * 40, 'n');
        auto got = DecodeReview(Review(R"("uid":")" + uid +
                                       R"(","object":{"spec":{"containers":[{"name":")" + name +
                                       R"("}]}})"));
        if (!got || got->uid != uid || got->object.podSpecs.size() != 1 ||
            got->object.podSpecs[0].containers[0].name != name) {
          ++wrong[t];
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(wrong, std::vector<int>(4, 0));
}

AdmissionRequest Request(std::string apiVersion = "admission.k8s.io/v1") {
  AdmissionRequest r;
  r.apiVersion = std::move(apiVersion);
  r.uid = "705ab4f5-6393-11e8-b7cc-42010a800002";
  return r;
}

json Encode(const AdmissionRequest& request, const Decision& decision) {
  std::string text = EncodeResponse(request, decision);
  json out = json::parse(text, nullptr, /*allow_exceptions=*/false);
  EXPECT_TRUE(out.is_object()) << text;
  return out;
}

TEST(EncodeResponse, Envelopes) {
  const std::string patch = R"([{"op":"add","path":"/spec/schedulerName","value":"volcano"}])";
  struct Case {
    std::string name;
    AdmissionRequest request;
    Decision decision;
    std::string want;  // the whole response review, as JSON text
  } cases[] = {
      {"allowed", Request(), Allowed("valid"),
       R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{
           "uid":"705ab4f5-6393-11e8-b7cc-42010a800002","allowed":true}})"},
      {"denied", Request(), Denied("whole-units", "spec.containers[0] \"a\": not whole"),
       R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{
           "uid":"705ab4f5-6393-11e8-b7cc-42010a800002","allowed":false,
           "status":{"metadata":{},"status":"Failure","reason":"Forbidden","code":403,
                     "message":"spec.containers[0] \"a\": not whole"}}})"},
      {"patched", Request(), Patched("patched", patch),
       R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{
           "uid":"705ab4f5-6393-11e8-b7cc-42010a800002","allowed":true,"patchType":"JSONPatch",
           "patch":"W3sib3AiOiJhZGQiLCJwYXRoIjoiL3NwZWMvc2NoZWR1bGVyTmFtZSIsInZhbHVlIjoidm9sY2FubyJ9XQ=="}})"},
      {"warnings", Request(), Allowed("valid", Notes{.warnings = {"first", "second \"quoted\""}}),
       R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{
           "uid":"705ab4f5-6393-11e8-b7cc-42010a800002","allowed":true,
           "warnings":["first","second \"quoted\""]}})"},
      {"audit annotations", Request(),
       Allowed("valid", Notes{.auditAnnotations = {{"quota", "exceeded \"quota\""},
                                                   {"whole-units", "not whole"}}}),
       R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{
           "uid":"705ab4f5-6393-11e8-b7cc-42010a800002","allowed":true,
           "auditAnnotations":{"quota":"exceeded \"quota\"","whole-units":"not whole"}}})"},
      {"denied with warnings and annotations", Request(),
       Denied("whole-units", "not whole",
              Notes{.warnings = {"privileged"}, .auditAnnotations = {{"scheduler", "skips"}}}),
       R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{
           "uid":"705ab4f5-6393-11e8-b7cc-42010a800002","allowed":false,
           "status":{"metadata":{},"status":"Failure","reason":"Forbidden","code":403,
                     "message":"not whole"},
           "warnings":["privileged"],"auditAnnotations":{"scheduler":"skips"}}})"},
      // gpugate failing to answer is not a refusal by the rules: the reason follows the code,
      // as the caller sees it ("Error from server (InternalError): ...").
      {"errored: internal", Request(), Errored(500, "quota-unavailable", "could not record"),
       R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{
           "uid":"705ab4f5-6393-11e8-b7cc-42010a800002","allowed":false,
           "status":{"metadata":{},"status":"Failure","reason":"InternalError","code":500,
                     "message":"could not record"}}})"},
      {"errored: past the deadline", Request(), Errored(504, "deadline-exceeded", "too late"),
       R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{
           "uid":"705ab4f5-6393-11e8-b7cc-42010a800002","allowed":false,
           "status":{"metadata":{},"status":"Failure","reason":"Timeout","code":504,
                     "message":"too late"}}})"},
      {"errored: a code without a reason of its own", Request(), Errored(418, "odd", "teapot"),
       R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{
           "uid":"705ab4f5-6393-11e8-b7cc-42010a800002","allowed":false,
           "status":{"metadata":{},"status":"Failure","code":418,"message":"teapot"}}})"},
      {"v1beta1 is echoed", Request("admission.k8s.io/v1beta1"), Allowed("valid"),
       R"({"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview","response":{
           "uid":"705ab4f5-6393-11e8-b7cc-42010a800002","allowed":true}})"},
      {"no apiVersion: v1", Request(""), Allowed("valid"),
       R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{
           "uid":"705ab4f5-6393-11e8-b7cc-42010a800002","allowed":true}})"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(Encode(c.request, c.decision), json::parse(c.want));
  }
}

TEST(EncodeResponse, PatchIsBase64OfThePatch) {
  for (
      const std::string& patch :
      {std::string(R"([{"op":"add","path":"/spec/schedulerName","value":"volcano"}])"),
       std::string(
           R"([{"op":"add","path":"/metadata/annotations","value":{"tencent.com/vcuda-core-limit":"5"}}])"),
       std::string(R"([{"op":"add","path":"/spec/tolerations/-","value":{"key":"ü/é"}}])")}) {
    SCOPED_TRACE(patch);
    json out = Encode(Request(), Patched("patched", patch));
    EXPECT_EQ(out["response"]["patchType"], "JSONPatch");
    EXPECT_EQ(Base64Decode(out["response"]["patch"].get<std::string>()), patch);
  }
}

TEST(EncodeResponse, MessagesAreJsonEscaped) {
  for (const std::string& message :
       {std::string("quotes \"here\" and a backslash \\"), std::string("two\nlines\r\n\ttabbed"),
        std::string("control \x01\x1f bytes"), std::string("unicode: GPU \xe2\x80\x94 ok"),
        std::string("</script>")}) {
    SCOPED_TRACE(message);
    AdmissionRequest r = Request();
    r.uid = "uid \"with\" quotes";
    Decision d = Denied("rule", message);
    d.warnings = {message};
    json out = Encode(r, d);
    EXPECT_EQ(out["response"]["uid"], r.uid);
    EXPECT_EQ(out["response"]["status"]["message"], message);
    EXPECT_EQ(out["response"]["warnings"], json::array({message}));
  }
}

TEST(EncodeResponse, RoundTripsTheDecodedUid) {
  auto request = DecodeReview(ReadFixture("admission.k8s.io.v1beta1.AdmissionReview.json"));
  ASSERT_TRUE(request.has_value());
  json out = Encode(*request, Allowed("valid"));
  EXPECT_EQ(out["apiVersion"], "admission.k8s.io/v1beta1");
  EXPECT_EQ(out["kind"], "AdmissionReview");
  EXPECT_EQ(out["response"]["uid"], "uidValue");
  EXPECT_EQ(out["response"]["allowed"], true);
}

}  // namespace
}  // namespace gpugate::review
