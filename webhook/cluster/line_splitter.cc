#include "cluster/line_splitter.h"

namespace gpugate::cluster {

bool LineSplitter::Deliver(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (line.empty()) return true;
  if (!onLine_(line)) stopped_ = true;
  return !stopped_;
}

bool LineSplitter::Feed(std::string_view chunk) {
  if (stopped_) return false;
  while (!chunk.empty()) {
    size_t newline = chunk.find('\n');
    if (newline == std::string_view::npos) {
      partial_.append(chunk);
      break;
    }
    std::string_view line = chunk.substr(0, newline);
    chunk.remove_prefix(newline + 1);
    if (partial_.empty()) {
      if (!Deliver(line)) return false;
      continue;
    }
    partial_.append(line);
    std::string whole = std::move(partial_);
    partial_.clear();
    if (!Deliver(whole)) return false;
  }
  return partial_.size() <= kMaxLineBytes;
}

bool LineSplitter::Finish() {
  if (stopped_) return false;
  std::string last = std::move(partial_);
  partial_.clear();
  return Deliver(last);
}

}  // namespace gpugate::cluster
