// Boost.Beast's HTTP/1.1 request parser (http::basic_parser, header-only, Debian's
// libboost1.81-dev) behind the interface of gpugate's own head parser
// (webhook/transport/head_parser.h), for the load benchmarks only: bench/CMakeLists.txt builds
// gpugate_floor_beast, whose event transport is compiled with this header found first, so the
// two parsers are measured in the same server, side by side (docs/decisions.md, "Transport
// under abuse"). Not part of gpugate.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "transport/http_message.h"

namespace gpugate::transport {

struct HeadLimits {
  size_t maxHeadBytes = 64 << 10;
  size_t maxHeaders = 100;
  size_t maxTargetBytes = 8 << 10;
  size_t maxBodyBytes = 8 << 20;
};

struct HeadParse {
  enum class State { kIncomplete, kComplete, kRefused };
  State state = State::kIncomplete;
  RequestHead head;
  int status = 0;
  std::string reason;
};

class HeadParser {
 public:
  using State = HeadParse::State;

  explicit HeadParser(const HeadLimits& limits);
  ~HeadParser();
  HeadParser(const HeadParser&) = delete;
  HeadParser& operator=(const HeadParser&) = delete;

  State Feed(std::string_view bytes);
  State state() const { return state_; }
  const RequestHead& Head(std::string_view bytes);
  int status() const { return status_; }
  const std::string& reason() const { return reason_; }
  uint64_t scanned() const { return scanned_; }
  void Reset();

  // What Beast's callbacks found; the adaptor's own state (beast_head_parser.cc).
  struct Span {
    uint32_t at = 0;
    uint32_t size = 0;
  };
  struct Found {
    Span method, target;
    std::vector<std::pair<Span, Span>> fields;
    int version = 11;
    int hosts = 0;
    bool keepAlive = true;
    bool expectContinue = false;
    int status = 0;  // a refusal found in a callback
    std::string reason;
  };

 private:
  class Sink;  // the Beast parser
  void Refuse(int status, std::string_view reason);

  const HeadLimits limits_;
  std::unique_ptr<Found> found_;  // before sink_, which refers to it
  std::unique_ptr<Sink> sink_;
  State state_ = State::kIncomplete;
  size_t pos_ = 0;   // the next byte to look at for a bare CR or LF
  bool cr_ = false;  // the byte before pos_ is a CR
  size_t headBytes_ = 0;
  size_t contentLength_ = 0;
  int status_ = 0;
  std::string reason_;
  uint64_t scanned_ = 0;
  RequestHead head_;
};

HeadParse ParseRequestHead(std::string_view bytes, const HeadLimits& limits);

}  // namespace gpugate::transport
