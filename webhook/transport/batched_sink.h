// A spdlog sink that writes log lines to a file descriptor many at a time instead of one
// write(2) each. Lines gather in a buffer of at most `bufferBytes`; the buffer goes out in one
// write (more only when the kernel takes part of it) when the next line would not fit, when
// spdlog flushes (a line at the logger's flush_on level, Flush), every `flushEvery` on the sink's
// own timer thread, and when the sink is destroyed.
//
// No line is dropped for want of room: a logger that finds the buffer full writes it out itself,
// and waits for that write (what every line cost before). A line longer than the buffer goes out
// whole, on its own. Lines are lost only when the descriptor refuses them (closed, a full disk):
// those are counted in Stats::droppedLines.
//
// Thread-safe: spdlog's base_sink holds mutex_ around sink_it_ and flush_. The timer thread
// inherits the signal mask of the thread that constructs the sink.
#pragma once

#include <spdlog/sinks/base_sink.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

namespace gpugate::transport {

class BatchedSink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  struct Options {
    int fd = STDERR_FILENO;  // not owned
    size_t bufferBytes = 64 << 10;
    // How long a line may wait in the buffer; zero: no timer thread (a test flushes by hand).
    std::chrono::milliseconds flushEvery{50};
  };

  struct Stats {
    uint64_t lines = 0;         // lines logged
    uint64_t writes = 0;        // write(2) calls made
    uint64_t droppedLines = 0;  // lines the descriptor refused
  };

  explicit BatchedSink(Options options);
  // Stops the timer thread, then writes out what is buffered.
  ~BatchedSink() override;

  Stats stats();

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override;
  void flush_() override;

 private:
  // Writes `data` (holding `lines` lines) out whole, or counts its lines as dropped. Requires
  // mutex_ held.
  void WriteLocked(const char* data, size_t size, uint64_t lines);
  void TimerLoop();

  const Options options_;
  std::string buffer_;          // guarded by mutex_; never longer than options_.bufferBytes
  uint64_t bufferedLines_ = 0;  // guarded by mutex_
  Stats stats_;                 // guarded by mutex_

  std::mutex timerMu_;
  std::condition_variable timerWake_;
  bool stopping_ = false;  // guarded by timerMu_
  std::thread timer_;
};

}  // namespace gpugate::transport
