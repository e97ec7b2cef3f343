#include "serving/review_route.h"

#include <chrono>
#include <memory>
#include <optional>
#include <string_view>
#include <utility>

#include "common/go_duration.h"
#include "serving/answer_deadline.h"
#include "transport/log.h"

namespace gpugate::serving {
namespace {

// The transport keeps enough bytes past each body for the review codec to parse it in place.
static_assert(transport::kBodyReadAhead >= review::kReadAheadNeeded);

using transport::LogLine;
using transport::Request;
using transport::Response;

std::string_view DecisionWord(const review::Decision& d) {
  if (!d.allowed) return "denied";
  return d.patch.empty() ? "allowed" : "patched";
}

// What rules in warn and audit mode found, for the log: what an operator reads before switching
// a namespace to deny, where the API server's audit log is out of reach. Nothing when empty.
void LogNotes(const review::Decision& d, LogLine& line) {
  auto join = [](auto begin, auto end, auto render) {
    std::string out;
    for (auto it = begin; it != end; ++it) out += (out.empty() ? "" : " | ") + render(*it);
    return out;
  };
  if (!d.violated.empty()) {
    line.Str("violated", join(d.violated.begin(), d.violated.end(),
                              [](const auto& v) { return v.rule + "=" + v.mode; }));
  }
  // Every finding whole, in every mode: warnings may carry only a short form or a count.
  if (!d.findings.empty()) {
    line.Str("findings",
             join(d.findings.begin(), d.findings.end(), [](const review::LoggedFinding& f) {
               return f.mode + " " + f.rule + ": " + f.message;
             }));
  }
  if (!d.warnings.empty()) {
    line.Str("warnings",
             join(d.warnings.begin(), d.warnings.end(), [](const std::string& w) { return w; }));
  }
  if (!d.auditAnnotations.empty()) {
    line.Str("auditAnnotations",
             join(d.auditAnnotations.begin(), d.auditAnnotations.end(),
                  [](const review::AuditAnnotation& a) { return a.key + ": " + a.value; }));
  }
}

}  // namespace

void ReviewRoute::Serve(const Request& req, Response& res, ReviewKind kind) const {
  const bool mutate = kind == ReviewKind::kMutate;
  const char* route = mutate ? "mutate" : "validate";
  if (!transport::IsJsonMediaType(req.head.Header("Content-Type"))) {
    res.Set(415, "Content-Type must be application/json\n");
    metrics_.CountRequest(route, res.status);
    return;
  }
  const Deadline start = SteadyClock::now();
  auto request = review::DecodeReviewInPlace(req.body, req.bodyReadAhead);
  if (!request) {
    res.Set(400, request.error().message + "\n");
    metrics_.CountRequest(route, res.status);
    LogLine("bad request").Str("route", route).Str("error", request.error().message).Warn();
    return;
  }
  ReviewCall call{.route = route, .start = start};
  if (auto timeoutParam = transport::QueryParam(req.head.query, "timeout")) {  // e.g. 5s
    auto timeout = ParseGoDuration(*timeoutParam);
    if (!timeout) {
      res.Set(400,
              "timeout " + timeoutParam->substr(0, 64) + ": " + timeout.error().message + "\n");
      metrics_.CountRequest(route, res.status);
      return;
    }
    call.timeout = *timeoutParam;
    call.callerDeadline = start + *timeout;
    request->deadline = AnswerDeadline(start, *timeout);
  }
  if (mutate || !handler_.MayBlock(*request)) {
    Decide(*request, call, kind, res);
    // Decoded on this thread, so the next request here is built from its lists. A request
    // decided by a worker is freed there instead: workers decode none.
    review::Recycle(*request);
    return;
  }
  // The decoded request keeps its parsed document (nothing in it points into the connection's
  // buffer), so it may be decided after the serving thread has moved on.
  auto shared = std::make_shared<review::AdmissionRequest>(std::move(*request));
  res.blocking = [this, shared, call = std::move(call)](Response& later) {
    Decide(*shared, call, ReviewKind::kValidate, later);
  };
}

void ReviewRoute::Decide(const review::AdmissionRequest& request, const ReviewCall& call,
                         ReviewKind kind, Response& res) const {
  const bool mutate = kind == ReviewKind::kMutate;
  review::Decision d = mutate ? handler_.Mutate(request) : handler_.Validate(request);
  res.Set(200, review::EncodeResponse(request, d), "application/json");
  auto elapsed = SteadyClock::now() - call.start;
  double seconds = std::chrono::duration<double>(elapsed).count();
  metrics_.CountReview(call.route, DecisionWord(d), d.reason, d.violated, seconds);
  LogLine line("decision");
  line.Str("route", call.route)
      .Str("uid", request.uid)
      .Str("kind", request.kind.kind)
      .Str("namespace", request.ns)
      .Str("name", request.ObjectName())
      .Str("operation", request.operation)
      .Str("decision", DecisionWord(d))
      .Str("reason", d.reason)
      .Str("message", d.message);
  LogNotes(d, line);
  line.Int("micros", std::chrono::duration_cast<std::chrono::microseconds>(elapsed).count()).Info();
  if (call.start + elapsed > call.callerDeadline) {
    LogLine("answered after the caller's deadline")
        .Str("route", call.route)
        .Str("uid", request.uid)
        .Str("timeout", call.timeout)
        .Warn();
  }
}

}  // namespace gpugate::serving
