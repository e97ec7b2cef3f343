#include "review/admission_review.h"

#include <simdjson.h>

#include <array>
#include <charconv>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "common/base64.h"
#include "common/strings.h"
#include "review/json_view.h"
#include "review/pod_spec_walker.h"
#include "review/raw_json.h"
#include "review/same_value.h"

namespace gpugate::review {
namespace {

constexpr std::string_view kV1 = "admission.k8s.io/v1";
constexpr std::string_view kV1beta1 = "admission.k8s.io/v1beta1";
constexpr std::string_view kNotJson = "request body is not valid JSON";
constexpr size_t kMaxDepth = simdjson::DEFAULT_MAX_DEPTH;  // 1,024

// The Kubernetes StatusReason (metav1.StatusReason*) that goes with a refusal's code. The API
// server hands the webhook's status to the caller as it is, so the reason is what kubectl prints
// ("Error from server (InternalError): ...") and what clients test (apierrors.IsForbidden,
// IsInternalError, IsTimeout): a refusal by the rules is Forbidden, gpugate failing to answer is
// not. "" for a code without one of its own: clients then go by the code.
constexpr std::string_view StatusReasonFor(int32_t code) {
  switch (code) {
    case 400:
      return "BadRequest";
    case 403:
      return "Forbidden";
    case 409:
      return "Conflict";
    case 429:
      return "TooManyRequests";
    case 500:
      return "InternalError";
    case 503:
      return "ServiceUnavailable";
    case 504:
      return "Timeout";
    default:
      return "";
  }
}

std::string TooDeep() {
  return "request body nests too deeply (more than " + std::to_string(kMaxDepth) +
         " levels of arrays and objects)";
}

// The envelope and metadata readers, written once over a JSON view (json_view.h). Each object is
// read with one FindAll.
template <typename View>
class EnvelopeReader {
 public:
  using Value = typename View::Value;
  using Found = std::optional<Value>;

  // The pod spec views keep `backing` and point into the document and `texts`. `oldJson` reads
  // request.oldObject (its own literal texts of numbers).
  EnvelopeReader(const View& json, const View& oldJson, policy::TextArena& texts,
                 std::shared_ptr<const void> backing)
      : json_(json), oldJson_(oldJson), texts_(texts), backing_(std::move(backing)) {}

  // One named result, returned from one place: the request is built where the caller keeps it,
  // never moved (a move copies each of its strings).
  Result<AdmissionRequest> Decode(Value doc) const {
    Result<AdmissionRequest> result(std::in_place);
    if (Status read = Read(doc, *result); !read) result = std::unexpected(std::move(read.error()));
    return result;
  }

 private:
  Status Read(Value doc, AdmissionRequest& out) const {
    if (json_.Type(doc) != JsonType::kObject) {
      return Fail("request body must be a JSON object (an AdmissionReview)");
    }
    static constexpr std::array<std::string_view, 3> kReview = {"apiVersion", "kind", "request"};
    const auto [apiVersion, kind, request] = json_.template FindAll<kReview>(doc);
    out.apiVersion = StringOf(apiVersion);
    if (out.apiVersion != kV1 && out.apiVersion != kV1beta1) {
      return Fail("apiVersion must be admission.k8s.io/v1 or admission.k8s.io/v1beta1, got " +
                  JsonQuote(out.apiVersion));
    }
    if (std::string k = StringOf(kind); k != "AdmissionReview") {
      return Fail("kind must be AdmissionReview, got " + JsonQuote(k));
    }
    const Found req = ObjectOf(request);
    if (!req) return Fail("request must be an object");
    static constexpr std::array<std::string_view, 11> kRequest = {
        "uid",       "kind",   "resource", "subResource", "name",   "namespace",
        "operation", "dryRun", "object",   "oldObject",   "options"};
    const auto [uid, objectKind, resource, subResource, name, ns, operation, dryRun, object,
                oldObject, options] = json_.template FindAll<kRequest>(*req);
    out.uid = StringOf(uid);
    if (out.uid.empty()) return Fail("request.uid must be a non-empty string");
    if (const Found k = ObjectOf(objectKind)) {
      static constexpr std::array<std::string_view, 3> kGvk = {"group", "version", "kind"};
      const auto [group, version, kindName] = json_.template FindAll<kGvk>(*k);
      out.kind = {StringOf(group), StringOf(version), StringOf(kindName)};
    }
    if (const Found r = ObjectOf(resource)) {
      static constexpr std::array<std::string_view, 1> kResource = {"resource"};
      out.resource = StringOf(json_.template FindAll<kResource>(*r)[0]);
    }
    out.subResource = StringOf(subResource);
    out.name = StringOf(name);
    out.ns = StringOf(ns);
    out.operation = StringOf(operation);
    if (dryRun && json_.Type(*dryRun) == JsonType::kBoolean) out.dryRun = json_.Bool(*dryRun);
    if (object && json_.Type(*object) != JsonType::kNull) ReadObject(*object, out);
    const bool pod = out.IsPod();
    if (const Found o = ObjectOf(object); o && pod && out.subResource == "status") {
      out.pod = LifecycleOf(*o);
    }
    if (const Found opts = ObjectOf(options); opts && out.operation == "DELETE") {
      out.gracePeriodSeconds = IntegerOf(json_.Find(*opts, "gracePeriodSeconds"));
    }
    if (const Found o = ObjectOf(oldObject)) {
      out.oldObjectMeta = MetaOf(json_.Find(*o, "metadata"));
      if (pod) out.oldPod = LifecycleOf(*o);
      if (out.operation == "UPDATE" && out.subResource.empty()) {
        out.hasOldObject = true;
        out.oldObject = WalkPodSpecs(oldJson_, *o, texts_, backing_);
        if (const Found now = ObjectOf(object)) {
          out.samePodSpecs = SamePodSpecs(View(), *o, *now, out.object, out.oldObject);
        }
      }
    }
    return {};
  }

  // A string's value, or "" when absent or not a string (callers check what they require).
  std::string StringOf(Found v) const {
    return v && json_.Type(*v) == JsonType::kString ? std::string(json_.String(*v)) : std::string();
  }

  Found ObjectOf(Found v) const {
    return v && json_.Type(*v) == JsonType::kObject ? v : std::nullopt;
  }

  // An integer's value; nullopt when absent, not a number, or not an integer within int64.
  std::optional<int64_t> IntegerOf(Found v) const {
    if (!v || json_.Type(*v) != JsonType::kNumber) return std::nullopt;
    // A non-integer's text is not asked for (it cannot be a grace period): "" finds none.
    const std::string text = json_.NumberText(*v, [] { return std::string(); });
    int64_t value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
    return value;
  }

  std::optional<WallClock::time_point> TimeOf(Found v) const {
    const std::string text = StringOf(v);
    if (text.empty()) return std::nullopt;
    Result<WallClock::time_point> t = ParseRfc3339(text);
    return t ? std::optional(*t) : std::nullopt;
  }

  // A Pod's lifecycle fields (PodLifecycle), from the object.
  PodLifecycle LifecycleOf(Value pod) const {
    static constexpr std::array<std::string_view, 3> kPod = {"metadata", "spec", "status"};
    const auto [metadata, spec, status] = json_.template FindAll<kPod>(pod);
    PodLifecycle out;
    if (const Found m = ObjectOf(metadata)) {
      static constexpr std::array<std::string_view, 2> kMeta = {"deletionTimestamp",
                                                                "deletionGracePeriodSeconds"};
      const auto [timestamp, grace] = json_.template FindAll<kMeta>(*m);
      out.deletionTimestamp = TimeOf(timestamp);
      out.deletionGracePeriodSeconds = IntegerOf(grace);
    }
    if (const Found s = ObjectOf(spec)) {
      static constexpr std::array<std::string_view, 2> kSpec = {"nodeName",
                                                                "terminationGracePeriodSeconds"};
      const auto [nodeName, grace] = json_.template FindAll<kSpec>(*s);
      out.nodeName = StringOf(nodeName);
      out.terminationGracePeriodSeconds = IntegerOf(grace);
    }
    if (const Found s = ObjectOf(status)) {
      static constexpr std::array<std::string_view, 2> kStatus = {"phase", "startTime"};
      const auto [phase, startTime] = json_.template FindAll<kStatus>(*s);
      out.phase = StringOf(phase);
      out.startTime = TimeOf(startTime);
    }
    return out;
  }

  // request.object: its pod specs, metadata and phase; its namespace when the request has none.
  void ReadObject(Value object, AdmissionRequest& out) const {
    out.hasObject = true;
    if (json_.Type(object) != JsonType::kObject) {
      out.object.shapeErrors.push_back({"request.object", "must be object"});
      return;
    }
    out.object = WalkPodSpecs(json_, object, texts_, backing_);
    static constexpr std::array<std::string_view, 2> kObject = {"metadata", "status"};
    const auto [metadata, status] = json_.template FindAll<kObject>(object);
    std::string ns;
    out.objectMeta = MetaOf(metadata, &ns);
    if (const Found st = ObjectOf(status)) out.phase = StringOf(json_.Find(*st, "phase"));
    if (out.ns.empty()) out.ns = std::move(ns);
  }

  // What gpugate reads of an object's metadata (when it is an object); metadata.namespace goes
  // to `ns` when asked for.
  ObjectMeta MetaOf(Found metadata, std::string* ns = nullptr) const {
    const Found m = ObjectOf(metadata);
    if (!m) return {};
    static constexpr std::array<std::string_view, 4> kMeta = {"name", "uid", "deletionTimestamp",
                                                              "namespace"};
    const auto [name, uid, deletion, nsField] = json_.template FindAll<kMeta>(*m);
    if (ns) *ns = StringOf(nsField);
    return {.name = StringOf(name),
            .uid = StringOf(uid),
            .deleting = deletion && json_.Type(*deletion) != JsonType::kNull};
  }

  const View& json_;
  const View& oldJson_;
  policy::TextArena& texts_;
  std::shared_ptr<const void> backing_;
};

// Both parsers read the body whole; a UTF-8 byte order mark is skipped, as nlohmann always did.
std::string_view WithoutByteOrderMark(std::string_view body) {
  if (body.starts_with("\xEF\xBB\xBF")) body.remove_prefix(3);
  return body;
}

// Whether arrays and objects nest more than `limit` deep, counting outside strings. Only for the
// fallback: simdjson stopped at a number before it could check the rest of the body.
bool NestsDeeperThan(std::string_view text, size_t limit) {
  size_t depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    switch (text[i]) {
      case '"':
        for (++i; i < text.size() && text[i] != '"'; ++i) {
          if (text[i] == '\\') ++i;
        }
        break;
      case '[':
      case '{':
        if (++depth > limit) return true;
        break;
      case ']':
      case '}':
        if (depth > 0) --depth;
        break;
      default:
        break;
    }
  }
  return false;
}

// Parsers kept for reuse. A parser holds about 0.6 MiB once it has parsed a body of a few KiB,
// and the number of requests being decided at once is bounded by the threads deciding them. So a
// request borrows a parser for as long as its views live (they point into the parser's strings).
// A thread that decodes requests (a serving thread) keeps the last parser it gave back for its
// next one, so deciding its own requests (the usual case) takes no lock. Every other parser waits
// in a shared list, whose size is the peak number of requests decided at once: among them those
// given back by threads that never decode (a worker that finished a blocking answer), which would
// otherwise each keep one.
class ParserPool {
 public:
  std::unique_ptr<simdjson::dom::parser> Take() {
    Kept& mine = Mine();
    mine.decodes = true;
    if (mine.parser) return std::move(mine.parser);
    std::lock_guard lock(mu_);
    if (free_.empty()) return std::make_unique<simdjson::dom::parser>();
    auto parser = std::move(free_.back());
    free_.pop_back();
    return parser;
  }
  void Give(std::unique_ptr<simdjson::dom::parser> parser) {
    if (Kept& mine = Mine(); mine.decodes && !mine.parser) {
      mine.parser = std::move(parser);
      return;
    }
    std::lock_guard lock(mu_);
    free_.push_back(std::move(parser));
  }

 private:
  struct Kept {
    std::unique_ptr<simdjson::dom::parser> parser;  // freed when the thread ends
    bool decodes = false;                           // this thread has taken a parser
  };
  static Kept& Mine() {
    thread_local Kept kept;
    return kept;
  }

  std::mutex mu_;
  std::vector<std::unique_ptr<simdjson::dom::parser>> free_;  // guarded by mu_
};

ParserPool& Parsers() {
  static ParserPool* pool = new ParserPool();  // never destroyed: workers may outlive statics
  return *pool;
}

// What a request decoded by simdjson points into: the parser (its DOM and strings) and the texts
// the walk printed. The request's pod spec views share it; when the last is gone a pooled parser
// goes back to the pool, a parser for a body above kKeepParserUpTo is freed.
struct SimdjsonDocument {
  explicit SimdjsonDocument(bool pooled)
      : parser(pooled ? Parsers().Take() : std::make_unique<simdjson::dom::parser>()),
        pooled(pooled) {}
  SimdjsonDocument(const SimdjsonDocument&) = delete;
  SimdjsonDocument& operator=(const SimdjsonDocument&) = delete;
  ~SimdjsonDocument() {
    if (pooled) Parsers().Give(std::move(parser));
  }

  std::unique_ptr<simdjson::dom::parser> parser;
  const bool pooled;
  policy::TextArena texts;
};

Result<AdmissionRequest> DecodeWith(std::shared_ptr<SimdjsonDocument> doc, std::string_view body,
                                    size_t readablePastEnd) {
  // simdjson reads up to SIMDJSON_PADDING bytes past the end (never writing them, and never
  // letting what they hold change the result). Where the caller cannot promise that many,
  // parse() copies the body into the parser's own padded buffer (allocated once per parser and
  // reused): one memcpy of the whole body, no allocation. The DOM keeps no pointer into the
  // input either way: its strings are copied into the parser.
  static_assert(kReadAheadNeeded >= simdjson::SIMDJSON_PADDING);
  const bool copy = readablePastEnd < kReadAheadNeeded;
  simdjson::dom::element root;
  switch (doc->parser->parse(body.data(), body.size(), /*realloc_if_needed=*/copy).get(root)) {
    case simdjson::SUCCESS:
      break;
    case simdjson::DEPTH_ERROR:
      return Fail(TooDeep());
    case simdjson::NUMBER_ERROR:
      // Possibly an integer beyond 64 bits (valid JSON); nlohmann reads it as a double and
      // refuses what is really malformed.
      if (NestsDeeperThan(body, kMaxDepth)) return Fail(TooDeep());
      doc.reset();  // back to the pool before the slow path
      return DecodeReviewWithNlohmann(body);
    case simdjson::MEMALLOC:
      return Fail("out of memory parsing the request body");
    default:
      return Fail(std::string(kNotJson));
  }
  const RawJsonFinder raw(body, "/request/object"), oldRaw(body, "/request/oldObject");
  const SimdjsonView json(&raw), oldJson(&oldRaw);
  policy::TextArena& texts = doc->texts;
  return EnvelopeReader<SimdjsonView>(json, oldJson, texts, std::move(doc)).Decode(root);
}

}  // namespace

Result<AdmissionRequest> DecodeReview(std::string_view body) {
  return DecodeReviewInPlace(body, 0);
}

Result<AdmissionRequest> DecodeReviewInPlace(std::string_view body, size_t readablePastEnd) {
  body = WithoutByteOrderMark(body);  // the same end
  return DecodeWith(std::make_shared<SimdjsonDocument>(body.size() <= kKeepParserUpTo), body,
                    readablePastEnd);
}

Result<AdmissionRequest> DecodeReviewWithNlohmann(std::string_view body) {
  body = WithoutByteOrderMark(body);
  // nlohmann stops reading at a NUL byte, so "{...}\0junk" would parse; JSON has no raw NULs.
  // It also skips a byte order mark itself, so a second one would pass where simdjson refuses it.
  if (body.find('\0') != std::string_view::npos || body.starts_with("\xEF\xBB\xBF")) {
    return Fail(std::string(kNotJson));
  }
  auto doc = std::make_shared<OwnedNlohmannDocument>();
  doc->json = nlohmann::json::parse(body.begin(), body.end(), nullptr, /*allow_exceptions=*/false);
  if (doc->json.is_discarded()) return Fail(std::string(kNotJson));
  const RawJsonFinder raw(body, "/request/object"), oldRaw(body, "/request/oldObject");
  const NlohmannView json(&raw), oldJson(&oldRaw);
  const NlohmannView::Value root = &doc->json;
  policy::TextArena& texts = doc->texts;
  return EnvelopeReader<NlohmannView>(json, oldJson, texts, std::move(doc)).Decode(root);
}

void Recycle(AdmissionRequest& request) {
  policy::RecycleViews(request.object);
  policy::RecycleViews(request.oldObject);
}

std::string EncodeResponse(const AdmissionRequest& request, const Decision& decision) {
  std::string out;
  out.reserve(256 + decision.message.size() + decision.patch.size() * 4 / 3);
  out += R"({"apiVersion":)";
  AppendJsonString(out, request.apiVersion.empty() ? kV1 : request.apiVersion);
  out += R"(,"kind":"AdmissionReview","response":{"uid":)";
  AppendJsonString(out, request.uid);
  out += decision.allowed ? R"(,"allowed":true)" : R"(,"allowed":false)";
  if (!decision.allowed) {
    out += R"(,"status":{"metadata":{},"status":"Failure",)";
    if (const std::string_view reason = StatusReasonFor(decision.code); !reason.empty()) {
      out += R"("reason":")";
      out += reason;
      out += R"(",)";
    }
    out += R"("code":)";
    out += std::to_string(decision.code);
    out += R"(,"message":)";
    AppendJsonString(out, decision.message);
    out += '}';
  }
  if (!decision.patch.empty()) {
    out += R"(,"patchType":"JSONPatch","patch":")";
    AppendBase64(out, decision.patch);
    out += '"';
  }
  if (!decision.warnings.empty()) {
    out += R"(,"warnings":[)";
    for (size_t i = 0; i < decision.warnings.size(); ++i) {
      if (i) out += ',';
      AppendJsonString(out, decision.warnings[i]);
    }
    out += ']';
  }
  if (!decision.auditAnnotations.empty()) {
    out += R"(,"auditAnnotations":{)";
    for (size_t i = 0; i < decision.auditAnnotations.size(); ++i) {
      if (i) out += ',';
      AppendJsonString(out, decision.auditAnnotations[i].key);
      out += ':';
      AppendJsonString(out, decision.auditAnnotations[i].value);
    }
    out += '}';
  }
  out += "}}";
  return out;
}

}  // namespace gpugate::review
