// /validate and /mutate: an AdmissionReview in, the admission handler's decision out, counted
// (requests, decisions, rule violations, latency) and logged. The ?timeout= rule
// (answer_deadline.h) gives the handler its deadline.
#pragma once

#include <string>

#include "admission/handler.h"
#include "common/deadline.h"
#include "review/admission_review.h"
#include "serving/metrics.h"
#include "transport/event_server.h"
#include "transport/http_message.h"

namespace gpugate::serving {

enum class ReviewKind { kValidate, kMutate };

// Thread-safe: Serve may run on any serving thread, and what it defers on a blocking worker.
class ReviewRoute {
 public:
  // `handler` and `metrics` must outlive the route and every answer it deferred.
  ReviewRoute(const admission::Handler& handler, Metrics& metrics)
      : handler_(handler), metrics_(metrics) {}

  // Decodes the review in `req` and decides it at once, or in Response::blocking when it may
  // wait (a quota charge): the decoded request keeps the connection's request document, which
  // stays put until the answer is made.
  void Serve(const transport::Request& req, transport::Response& res, ReviewKind kind) const;

 private:
  // What deciding needs of the HTTP request, whose head may be gone by then.
  struct ReviewCall {
    const char* route;  // "validate" or "mutate", as metrics and the log name it
    Deadline start;
    std::string timeout;                    // ?timeout= as sent; "" when absent
    Deadline callerDeadline = kNoDeadline;  // start + timeout
  };
  void Decide(const review::AdmissionRequest& request, const ReviewCall& call, ReviewKind kind,
              transport::Response& res) const;

  const admission::Handler& handler_;
  Metrics& metrics_;
};

}  // namespace gpugate::serving
