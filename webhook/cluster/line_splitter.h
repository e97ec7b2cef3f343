// Splits a byte stream that arrives in arbitrary chunks (a watch response) into lines.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace gpugate::cluster {

class LineSplitter {
 public:
  // One watch event is one line; etcd refuses objects over 1.5 MiB, so this is generous.
  static constexpr size_t kMaxLineBytes = 16 << 20;

  // `onLine` gets every non-empty line without its "\n" or "\r\n", and returns false to stop.
  explicit LineSplitter(std::function<bool(std::string_view)> onLine)
      : onLine_(std::move(onLine)) {}

  // Hands over every line the chunk completes and keeps the partial tail for the next chunk.
  // False once `onLine` has returned false (stopped()) or a line outgrew kMaxLineBytes.
  bool Feed(std::string_view chunk);
  // The stream ended cleanly: a last line without "\n" is complete, so it is handed over too.
  // (After a broken stream, don't call this: the tail may be cut short.)
  bool Finish();

  bool stopped() const { return stopped_; }

 private:
  bool Deliver(std::string_view line);

  std::function<bool(std::string_view)> onLine_;
  std::string partial_;  // bytes after the last "\n" seen
  bool stopped_ = false;
};

}  // namespace gpugate::cluster
