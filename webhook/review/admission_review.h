// The AdmissionReview codec: decodes a request body into an AdmissionRequest (with the pod specs
// the rules need already extracted) and encodes a Decision as the response review.
//
// Decoding never throws. An error from DecodeReview means the body is not an AdmissionReview
// gpugate can answer (HTTP 400); a review whose object has the wrong shape decodes fine and
// carries ShapeErrors for the rules to deny with a message naming the field.
//
// The body is parsed once, by simdjson's DOM parser. The envelope's few fields are copied out; the
// pod spec views borrow their strings from the parser (policy/pod_view.h), which the views keep
// until the last of them is gone. Nothing points into the body itself.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/deadline.h"
#include "common/result.h"
#include "common/rfc3339.h"
#include "policy/pod_view.h"
#include "review/decision.h"

namespace gpugate::review {

struct GroupVersionKind {
  std::string group;
  std::string version;
  std::string kind;
};

// Identity of the object (or old object) under review, from its metadata.
struct ObjectMeta {
  std::string name;       // set by the apiserver before validation, even for generateName
  std::string uid;        // set before validating admission on CREATE
  bool deleting = false;  // metadata.deletionTimestamp is set
};

// What gpugate reads of a Pod's lifecycle, to tell when it stops holding its devices
// (quota/release_edge.h). Each field is as the API server stored it; a field that is absent, or
// not of its type (a time that is not RFC 3339, a grace period that is not an integer), is empty.
struct PodLifecycle {
  std::string nodeName;                                    // spec.nodeName: "" until scheduled
  std::optional<int64_t> terminationGracePeriodSeconds;    // spec.terminationGracePeriodSeconds
  std::string phase;                                       // status.phase
  std::optional<WallClock::time_point> startTime;          // status.startTime (set by the kubelet)
  std::optional<WallClock::time_point> deletionTimestamp;  // metadata.deletionTimestamp
  std::optional<int64_t> deletionGracePeriodSeconds;       // metadata.deletionGracePeriodSeconds
};

struct AdmissionRequest {
  std::string apiVersion;  // of the envelope: "admission.k8s.io/v1" or ".../v1beta1"
  std::string uid;
  GroupVersionKind kind;    // of the object, e.g. {"", "v1", "Pod"}
  std::string resource;     // e.g. "pods"
  std::string subResource;  // e.g. "status"; "" for the main resource
  std::string name;
  std::string ns;
  std::string operation;  // CREATE, UPDATE, DELETE, CONNECT
  bool dryRun = false;
  bool hasObject = false;     // request.object is present and not null
  policy::ObjectView object;  // pod specs found anywhere in request.object
  ObjectMeta objectMeta;      // request.object.metadata
  ObjectMeta oldObjectMeta;   // request.oldObject.metadata (DELETE and UPDATE)
  // Pod specs found in request.oldObject, read for an UPDATE of the main resource only (what
  // the handler compares with `object`); `hasOldObject`: request.oldObject was an object then.
  bool hasOldObject = false;
  policy::ObjectView oldObject;
  // An UPDATE whose old object has the same pod specs, at the same places, by value
  // (review/same_value.h): every field of each spec, not only those the rules read.
  bool samePodSpecs = false;
  std::string phase;  // request.object.status.phase, for Pods
  // For Pods: `oldPod` from request.oldObject (the pod as stored before this DELETE or UPDATE),
  // `pod` from request.object of a status update. Empty otherwise.
  PodLifecycle oldPod;
  PodLifecycle pod;
  // request.options.gracePeriodSeconds of a DELETE (its DeleteOptions); nullopt when not given.
  std::optional<int64_t> gracePeriodSeconds;
  // When gpugate must have its answer ready: the caller's ?timeout= less a margin for sending it
  // (serving/answer_deadline.h). Not part of the body: the serving layer sets it. kNoDeadline:
  // none known.
  Deadline deadline = kNoDeadline;

  bool IsPod() const { return kind.group.empty() && kind.kind == "Pod"; }
  // The metadata the request is about: the old object's for a DELETE, the object's otherwise.
  const ObjectMeta& Meta() const { return operation == "DELETE" ? oldObjectMeta : objectMeta; }
  // The object's name: its metadata's, else request.name. The API server leaves request.name
  // out of each item of a DeleteCollection (what deleting a namespace sends) and of a mutating
  // review of a create by generateName (no name yet: ""); a validating one has the generated name.
  std::string_view ObjectName() const { return Meta().name.empty() ? name : Meta().name; }
};

// Thread-safe: each decode borrows a parser (simdjson parsers are not thread-safe) for as long as
// the request's views live, reused across requests up to kKeepParserUpTo bytes (the decoding
// thread's own, else one from a shared pool sized by the peak number of requests decided at
// once); a larger body gets a parser freed with the views. Arrays and objects nested more than
// 1,024 deep are refused. The body is first copied into the parser's own padded buffer.
Result<AdmissionRequest> DecodeReview(std::string_view body);

// DecodeReview, the same result, with the body parsed where it lies when `readablePastEnd`
// bytes after it may be read (allocated, contents unspecified: transport::Request's
// bodyReadAhead) and that is at least kReadAheadNeeded; copied as DecodeReview does otherwise.
Result<AdmissionRequest> DecodeReviewInPlace(std::string_view body, size_t readablePastEnd);

// The read-ahead past the body that lets DecodeReviewInPlace parse it in place: simdjson reads up
// to SIMDJSON_PADDING bytes beyond its input.
inline constexpr size_t kReadAheadNeeded = 64;

// Bodies up to this size are parsed by a parser borrowed from a shared pool and returned after.
inline constexpr size_t kKeepParserUpTo = 128 * 1024;

// The same decode over nlohmann-json, with the same results and messages, except that it does not
// limit nesting. DecodeReview falls back to it (after checking the nesting) when simdjson refuses
// a number: simdjson stops at 64-bit integers, while JSON allows any, and the apiserver writes a
// custom resource's float of 1e20 as 100000000000000000000. Also the benchmarks' baseline.
Result<AdmissionRequest> DecodeReviewWithNlohmann(std::string_view body);

// Done with `request`: its pod specs' lists go to this thread's pools for the next decode's
// (policy::RecycleViews). Only an optimisation: a request simply destroyed frees them.
void Recycle(AdmissionRequest& request);

// The response review, in the request's apiVersion, echoing its uid. The only place that
// builds the envelope.
std::string EncodeResponse(const AdmissionRequest& request, const Decision& decision);

}  // namespace gpugate::review
