// The work of one review through the review route, for an instruction count under callgrind
// (tests/budget/instructions.sh): what a serving thread does for a /validate or /mutate request
// once its bytes are in the buffer, as `gpugate serve` does it without a config file (the
// built-in policy, the local ledger in memory, the JSON log line, the metrics): decode the
// review, decide it, encode the answer, count and log it. TLS, HTTP framing and the system
// calls are not in it; tests/budget/syscalls.py counts those on the real server.
//
//   gpugate_review_cost BODY.json validate|mutate COUNT
//
// Answers the review a few times to warm up (first-use initialisation is not per review), then
// COUNT times in ReviewMany, the only function callgrind collects (--toggle-collect). Prints
// the last answer's decision ("allowed", "patched" or "denied"); exits 1 if an answer was not
// 200, or differed from the first, so a cheap error path cannot pass for a review.
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "admission/handler.h"
#include "config/config.h"
#include "quota/ledger.h"
#include "serving/metrics.h"
#include "serving/review_route.h"
#include "transport/event_server.h"
#include "transport/head_parser.h"
#include "transport/log.h"

namespace gpugate {
namespace {

using serving::ReviewKind;

constexpr int kWarmUp = 3;

// One review's answer, as the server would write its body; the blocking part, if any, run here.
std::string Answer(const serving::ReviewRoute& route, const transport::Request& req,
                   ReviewKind kind) {
  transport::Response res;
  route.Serve(req, res, kind);
  if (res.blocking) res.blocking(res);
  return res.status == 200 ? std::move(res.body) : std::string();
}

// Kept out of line: callgrind counts the instructions executed inside it (and its callees).
[[gnu::noinline]] bool ReviewMany(const serving::ReviewRoute& route, const transport::Request& req,
                                  ReviewKind kind, int count, const std::string& expected) {
  bool same = true;
  for (int i = 0; i < count; ++i) same = Answer(route, req, kind) == expected && same;
  return same;
}

std::string Decision(const std::string& answer) {
  if (answer.find("\"allowed\":false") != std::string::npos) return "denied";
  return answer.find("\"patch\":") != std::string::npos ? "patched" : "allowed";
}

int Run(const std::string& bodyFile, const std::string& route, int count) {
  std::ifstream in(bodyFile, std::ios::binary);
  std::stringstream body;
  body << in.rdbuf();
  if (!in || (route != "validate" && route != "mutate") || count < 1) {
    std::cerr << "usage: gpugate_review_cost BODY.json validate|mutate COUNT\n";
    return 2;
  }
  // The request as the server holds it: with the read-ahead it keeps past every body
  // (transport::kBodyReadAhead), which lets the route parse the body where it lies.
  std::string text = "POST /" + route +
                     " HTTP/1.1\r\nHost: gpugate\r\nContent-Type: application/json\r\n"
                     "Content-Length: " +
                     std::to_string(body.str().size()) + "\r\n\r\n" + body.str();
  const size_t requestBytes = text.size();
  text.append(transport::kBodyReadAhead, ' ');
  const std::string_view request = std::string_view(text).substr(0, requestBytes);
  transport::HeadParse head = transport::ParseRequestHead(request, transport::HeadLimits{});
  if (head.state != transport::HeadParse::State::kComplete) {
    std::cerr << "gpugate_review_cost: the request head did not parse\n";
    return 2;
  }
  const transport::Request req{head.head, request.substr(head.head.headBytes), nullptr,
                               transport::kBodyReadAhead};
  transport::InitJsonLogging();
  config::Config cfg;  // `gpugate serve` without a config file
  quota::Ledger ledger(cfg.quota, nullptr);
  if (!ledger.Open()) return 2;
  admission::Handler handler(cfg.policy, &ledger);
  serving::Metrics metrics;
  serving::ReviewRoute reviews(handler, metrics);
  const ReviewKind kind = route == "mutate" ? ReviewKind::kMutate : ReviewKind::kValidate;
  std::string first = Answer(reviews, req, kind);
  for (int i = 1; i < kWarmUp; ++i) Answer(reviews, req, kind);
  const bool same = !first.empty() && ReviewMany(reviews, req, kind, count, first);
  transport::FlushLogs();
  std::cout << (first.empty() ? "error" : Decision(first)) << "\n";
  return same ? 0 : 1;
}

}  // namespace
}  // namespace gpugate

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: gpugate_review_cost BODY.json validate|mutate COUNT\n";
    return 2;
  }
  return gpugate::Run(argv[1], argv[2], std::atoi(argv[3]));
}
