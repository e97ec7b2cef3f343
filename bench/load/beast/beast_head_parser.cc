// gpugate's head-parser interface over Boost.Beast's http::basic_parser (transport/head_parser.h
// beside this file says why it exists). Beast frames the request line and the fields, checks
// tokens, values and Content-Length, and resumes its search for the end of the head where it
// stopped; this adaptor adds what gpugate's own parser refuses that Beast does not: a bare CR or
// LF as soon as it arrives, the Host rules, Transfer-Encoding, an origin-form target, the
// version, the limits, and Expect.
#include <algorithm>
#include <boost/beast/core/buffers_range.hpp>
#include <boost/beast/http/basic_parser.hpp>
#include <boost/beast/http/error.hpp>

#include "transport/head_parser.h"

namespace gpugate::transport {
namespace http = boost::beast::http;
using boost::beast::error_code;

class HeadParser::Sink final : public http::basic_parser<true> {
 public:
  Sink(const HeadLimits& limits, Found& found) : limits_(limits), found_(found) {}
  const char* base = nullptr;  // the bytes of the current put()

 private:
  Span SpanOf(boost::beast::string_view s) const {
    return {static_cast<uint32_t>(s.data() - base), static_cast<uint32_t>(s.size())};
  }
  void Refuse(int status, std::string_view reason, error_code& ec) {
    found_.status = status;
    found_.reason = reason;
    ec = http::error::bad_field;  // stops the parse; the adaptor reports found_'s refusal
  }

  void on_request_impl(http::verb, boost::beast::string_view method,
                       boost::beast::string_view target, int version, error_code& ec) override {
    if (target.empty() || target.front() != '/') return Refuse(400, "malformed request target", ec);
    if (target.size() > limits_.maxTargetBytes) return Refuse(414, "request target too long", ec);
    if (version != 10 && version != 11) {
      return Refuse(505, "only HTTP/1.1 and HTTP/1.0 are served", ec);
    }
    found_.version = version;
    found_.method = SpanOf(method);
    found_.target = SpanOf(target);
  }
  void on_response_impl(int, boost::beast::string_view, int, error_code&) override {}
  void on_field_impl(http::field name, boost::beast::string_view nameText,
                     boost::beast::string_view value, error_code& ec) override {
    if (found_.fields.size() == limits_.maxHeaders) {
      return Refuse(431, "too many request headers", ec);
    }
    found_.fields.emplace_back(SpanOf(nameText), SpanOf(value));
    switch (name) {
      case http::field::host:
        if (++found_.hosts > 1) return Refuse(400, "more than one Host header", ec);
        break;
      case http::field::transfer_encoding:
        return Refuse(
            411, "a request body needs a Content-Length; Transfer-Encoding is not accepted", ec);
      case http::field::expect:
        if (!boost::beast::iequals(value, "100-continue")) {
          return Refuse(417, "unsupported Expect", ec);
        }
        found_.expectContinue = found_.version == 11;
        break;
      default:
        break;
    }
  }
  void on_header_impl(error_code&) override {}
  void on_body_init_impl(boost::optional<std::uint64_t> const&, error_code&) override {}
  std::size_t on_body_impl(boost::beast::string_view body, error_code&) override {
    return body.size();
  }
  void on_chunk_header_impl(std::uint64_t, boost::beast::string_view, error_code&) override {}
  std::size_t on_chunk_body_impl(std::uint64_t, boost::beast::string_view body,
                                 error_code&) override {
    return body.size();
  }
  void on_finish_impl(error_code&) override {}

  const HeadLimits& limits_;
  Found& found_;
};

HeadParser::HeadParser(const HeadLimits& limits) : limits_(limits) { Reset(); }
HeadParser::~HeadParser() = default;

void HeadParser::Refuse(int status, std::string_view reason) {
  state_ = State::kRefused;
  status_ = status;
  reason_.assign(reason);
  reason_ += '\n';
}

HeadParser::State HeadParser::Feed(std::string_view bytes) {
  if (state_ != State::kIncomplete) return state_;
  // Beast refuses a bare CR or LF only once the head is complete; look at the new bytes for them
  // now, up to the head's end, which is where a CR LF follows a CR LF.
  const size_t end = std::min(bytes.size(), limits_.maxHeadBytes);
  size_t headEnd = 0;
  const size_t start = pos_;
  for (; pos_ < end && headEnd == 0; ++pos_) {
    const char c = bytes[pos_];
    if (cr_) {
      cr_ = false;
      if (c != '\n') {
        ++pos_;
        Refuse(400, "a CR not followed by LF in the request head");
        break;
      }
      if (pos_ >= 3 && bytes[pos_ - 2] == '\n' && bytes[pos_ - 3] == '\r') headEnd = pos_ + 1;
    } else if (c == '\r') {
      cr_ = true;
    } else if (c == '\n') {
      ++pos_;
      Refuse(400, "a LF without its CR in the request head");
      break;
    }
  }
  scanned_ += pos_ - start;
  if (state_ != State::kIncomplete) return state_;
  if (headEnd == 0) {
    if (bytes.size() > limits_.maxHeadBytes) Refuse(431, "request headers too large");
    return state_;
  }
  Found& f = *found_;
  sink_->base = bytes.data();
  error_code ec;
  const size_t used = sink_->put(boost::asio::const_buffer(bytes.data(), headEnd), ec);
  scanned_ += 2 * headEnd;  // Beast's search for the head's end, then its parse
  if (f.status != 0) {
    Refuse(f.status, f.reason);
  } else if (ec == http::error::header_limit) {
    Refuse(431, "request headers too large");
  } else if (ec) {
    Refuse(400, "malformed request head: " + ec.message());
  } else if (!sink_->is_header_done()) {
    Refuse(400, "malformed request head");
  } else {
    headBytes_ = used;
    f.keepAlive = sink_->keep_alive();
    contentLength_ = sink_->content_length().value_or(0);
    const std::string_view method(bytes.data() + f.method.at, f.method.size);
    const bool carriesBody = method == "POST" || method == "PUT" || method == "PATCH";
    if (f.hosts == 0 && f.version == 11) {
      Refuse(400, "an HTTP/1.1 request needs a Host header");
    } else if (carriesBody && !sink_->content_length()) {
      Refuse(411, "a request body needs a Content-Length");
    } else if (contentLength_ > limits_.maxBodyBytes) {
      Refuse(413, "request body of " + std::to_string(contentLength_) +
                      " bytes is over the limit of " + std::to_string(limits_.maxBodyBytes));
    } else {
      state_ = State::kComplete;
    }
  }
  return state_;
}

const RequestHead& HeadParser::Head(std::string_view bytes) {
  const Found& f = *found_;
  auto view = [&](Span s) { return bytes.substr(s.at, s.size); };
  RequestHead& h = head_;
  h.method = view(f.method);
  const std::string_view target = view(f.target);
  const size_t q = target.find('?');
  h.path = target.substr(0, q);
  h.query = q == std::string_view::npos ? std::string_view() : target.substr(q + 1);
  h.headers.clear();
  for (const auto& [name, value] : f.fields) h.headers.emplace_back(view(name), view(value));
  h.headBytes = headBytes_;
  h.contentLength = contentLength_;
  h.keepAlive = f.keepAlive;
  h.expectContinue = f.expectContinue;
  return h;
}

void HeadParser::Reset() {
  if (!found_) found_ = std::make_unique<Found>();
  found_->fields.clear();
  found_->method = found_->target = {};
  found_->version = 11;
  found_->hosts = 0;
  found_->keepAlive = true;
  found_->expectContinue = false;
  found_->status = 0;
  found_->reason.clear();
  // A Beast parser parses one message: a fresh one per request.
  sink_ = std::make_unique<Sink>(limits_, *found_);
  sink_->header_limit(static_cast<std::uint32_t>(limits_.maxHeadBytes));
  sink_->body_limit(boost::none);
  state_ = State::kIncomplete;
  pos_ = 0;
  cr_ = false;
  headBytes_ = 0;
  contentLength_ = 0;
  status_ = 0;
  reason_.clear();
  scanned_ = 0;
}

HeadParse ParseRequestHead(std::string_view bytes, const HeadLimits& limits) {
  HeadParser parser(limits);
  HeadParse out;
  out.state = parser.Feed(bytes);
  if (out.state == HeadParse::State::kComplete) out.head = parser.Head(bytes);
  if (out.state == HeadParse::State::kRefused) {
    out.status = parser.status();
    out.reason = parser.reason();
  }
  return out;
}

}  // namespace gpugate::transport
