#include "transport/batched_sink.h"

#include <cerrno>

namespace gpugate::transport {

BatchedSink::BatchedSink(Options options) : options_(options) {
  buffer_.reserve(options_.bufferBytes);
  if (options_.flushEvery.count() > 0) timer_ = std::thread([this] { TimerLoop(); });
}

BatchedSink::~BatchedSink() {
  {
    std::lock_guard lock(timerMu_);
    stopping_ = true;
  }
  timerWake_.notify_all();
  if (timer_.joinable()) timer_.join();
  Flush();
}

BatchedSink::Stats BatchedSink::stats() {
  std::lock_guard lock(mu_);
  return stats_;
}

void BatchedSink::Add(std::string_view line, bool flushNow) {
  std::lock_guard lock(mu_);
  ++stats_.lines;
  if (buffer_.size() + line.size() > options_.bufferBytes) FlushLocked();
  if (line.size() > options_.bufferBytes) return WriteLocked(line.data(), line.size(), 1);
  buffer_.append(line);
  ++bufferedLines_;
  if (flushNow) FlushLocked();
}

void BatchedSink::Flush() {
  std::lock_guard lock(mu_);
  FlushLocked();
}

void BatchedSink::FlushLocked() {
  if (buffer_.empty()) return;
  WriteLocked(buffer_.data(), buffer_.size(), bufferedLines_);
  buffer_.clear();
  bufferedLines_ = 0;
}

void BatchedSink::WriteLocked(const char* data, size_t size, uint64_t lines) {
  while (size > 0) {
    ++stats_.writes;
    ssize_t n = ::write(options_.fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      // Every line of the batch is counted, though a partial write may have put some out.
      stats_.droppedLines += lines;
      return;
    }
    data += n;
    size -= static_cast<size_t>(n);
  }
}

void BatchedSink::TimerLoop() {
  std::unique_lock lock(timerMu_);
  while (!timerWake_.wait_for(lock, options_.flushEvery, [this] { return stopping_; })) {
    lock.unlock();
    Flush();
    lock.lock();
  }
}

}  // namespace gpugate::transport
