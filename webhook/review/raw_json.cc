#include "review/raw_json.h"

#include <nlohmann/json.hpp>
#include <vector>

#include "review/pod_spec_finder.h"

namespace gpugate::review {
namespace {

using nlohmann::json;

// A SAX handler that tracks the RFC 6901 pointer of the current value and records the text of
// decimal numbers sitting in a resources.limits or resources.requests object, or an overhead.
// nlohmann's SAX parser is iterative, so deep nesting costs heap, not stack. Map insertion in
// document order leaves the last of repeated keys, as the DOM views pick it.
class DecimalCollector : public json::json_sax_t {
 public:
  explicit DecimalCollector(std::unordered_map<std::string, std::string>& out) : out_(out) {}

  bool null() override { return Value(); }
  bool boolean(bool) override { return Value(); }
  bool number_integer(number_integer_t) override { return Value(); }
  bool number_unsigned(number_unsigned_t) override { return Value(); }
  bool number_float(number_float_t, const string_t& text) override {
    Value();
    if (InQuantityList()) out_[pointer_] = text;
    return true;
  }
  bool string(string_t&) override { return Value(); }
  bool binary(binary_t&) override { return Value(); }
  bool start_object(std::size_t) override { return Open(false); }
  bool end_object() override { return Close(); }
  bool start_array(std::size_t) override { return Open(true); }
  bool end_array() override { return Close(); }
  bool key(string_t& key) override {
    Segment(JsonPointerEscape(key));
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }

 private:
  struct Level {
    bool array;
    size_t next;    // the next array index
    size_t length;  // pointer_'s length at this container
  };

  // Every value in an array gets the next index as its last segment.
  bool Value() {
    if (!levels_.empty() && levels_.back().array) {
      Segment(std::to_string(levels_.back().next++));
    }
    return true;
  }
  bool Open(bool array) {
    Value();
    levels_.push_back({array, 0, pointer_.size()});
    return true;
  }
  bool Close() {
    pointer_.resize(levels_.back().length);
    levels_.pop_back();
    return true;
  }
  void Segment(std::string_view segment) {
    pointer_.resize(levels_.back().length);
    pointer_ += '/';
    pointer_ += segment;
  }

  // ".../resources/limits/<name>", ".../resources/requests/<name>" or a pod spec's
  // ".../overhead/<name>".
  bool InQuantityList() const {
    std::string_view p = pointer_;
    p = p.substr(0, p.rfind('/'));
    return p.ends_with("/resources/limits") || p.ends_with("/resources/requests") ||
           p.ends_with("/overhead");
  }

  std::unordered_map<std::string, std::string>& out_;
  std::vector<Level> levels_;
  std::string pointer_;
};

}  // namespace

std::optional<std::string> RawJsonFinder::At(std::string_view pointer) const {
  if (!scanned_) {
    scanned_ = true;
    DecimalCollector collector(decimals_);
    if (!json::sax_parse(body_.begin(), body_.end(), &collector)) decimals_.clear();
  }
  std::string absolute(prefix_);
  absolute += pointer;
  auto it = decimals_.find(absolute);
  if (it == decimals_.end()) return std::nullopt;
  return it->second;
}

}  // namespace gpugate::review
