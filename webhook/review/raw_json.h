// The literal text of the decimal numbers in a request body. Parsers keep a number's value, not
// its text: simdjson's DOM and nlohmann-json both hold a double, and printing it back is not what
// the sender wrote ("1e3" prints as "1000.0", "1.0000000000000000001" as "1.0"). Quantities are
// read exactly, so the finder's views ask this for the text of every quantity written as a
// non-integer number (or an integer beyond 64 bits).
//
// The first question costs one extra pass over the body (nlohmann's SAX parser, which reports each
// number's text), recording the text of every such number under resources.limits,
// resources.requests and a pod spec's overhead; later questions are lookups. The apiserver
// writes a Pod's quantities as strings, so only custom resources ever pay for the pass.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace gpugate::review {

class RawJsonFinder {
 public:
  // `body` is the whole JSON text, already validated, and must outlive the finder, as must
  // `prefix` (an RFC 6901 pointer, e.g. "/request/object": a literal). Pointers passed to At()
  // are relative to `prefix`. Constructing one allocates nothing: a decode makes two, and most
  // never ask.
  RawJsonFinder(std::string_view body, std::string_view prefix) : body_(body), prefix_(prefix) {}

  // The literal text of the quantity at prefix + `pointer` (".../resources/limits/<name>",
  // ".../requests/<name>" or ".../overhead/<name>"), when it is a non-integer number; nullopt
  // otherwise. Where an object repeats a key, the last occurrence counts, as in both parsers'
  // views. Not thread-safe: one finder per decode.
  std::optional<std::string> At(std::string_view pointer) const;

 private:
  std::string_view body_;
  std::string_view prefix_;
  mutable bool scanned_ = false;
  mutable std::unordered_map<std::string, std::string> decimals_;  // absolute pointer -> text
};

}  // namespace gpugate::review
